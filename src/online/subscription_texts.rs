//! What the subscription says (ON-A03), in Brazilian Portuguese and English: what it opens,
//! its price in the player's way of writing money, and where the player's subscription stands.

use velha_api::{PaidState, Period, Plan, SubscriptionView};

/// The subscription's texts in one language.
#[derive(Debug)]
#[allow(missing_docs)]
pub struct SubscriptionTexts {
    /// Portuguese: dates and money are written the Brazilian way.
    pub pt: bool,
    pub title: &'static str,
    /// What the subscription opens, one line each.
    pub opens: [&'static str; 2],
    pub per_month: &'static str,
    pub per_year: &'static str,
    pub subscribe: &'static str,
    pub manage: &'static str,
    pub not_on_sale: &'static str,
    pub sign_in_first: &'static str,
    /// On the desktop, while the system browser shows the checkout, and the portal.
    pub in_browser: &'static str,
    pub portal_in_browser: &'static str,
    pub confirming: &'static str,
    pub not_confirmed: &'static str,
    pub check_again: &'static str,
    pub back_to_subscription: &'static str,
    pub sign_in_to_confirm: &'static str,
    pub none: &'static str,
    /// The standings with their last day (`standing`).
    pub renewing: fn(&str) -> String,
    pub canceled: fn(&str) -> String,
    pub payment_failed: fn(&str) -> String,
    pub granted: fn(&str) -> String,
    pub ended: fn(&str) -> String,
}

/// Brazilian Portuguese.
pub static SUBSCRIPTION_PT: SubscriptionTexts = SubscriptionTexts {
    pt: true,
    title: "Assinatura",
    opens: [
        "Jogo online do Cubo da Velha: Mundial (jogadores de qualquer país) ou Nacional (só jogadores do seu país), valendo o ranking mundial e o nacional.",
        "Mini ranking: crie o seu grupo, convide amigos pelo nome do jogador e jogue só com os participantes.",
    ],
    per_month: "por mês",
    per_year: "por ano",
    subscribe: "Assinar",
    manage: "Gerenciar assinatura",
    not_on_sale: "A assinatura não está à venda agora. Tente de novo mais tarde.",
    sign_in_first: "Entre na sua conta para assinar.",
    in_browser: "Continue no navegador que abrimos; o jogo online abre aqui assim que o pagamento for confirmado.",
    portal_in_browser: "Continue no navegador que abrimos; a assinatura aparece atualizada quando você abrir o perfil de novo.",
    confirming: "Confirmando o pagamento…",
    not_confirmed: "O pagamento ainda não foi confirmado. Se você pagou, a confirmação pode levar alguns minutos: verifique de novo daqui a pouco.",
    check_again: "Verificar de novo",
    back_to_subscription: "Voltar à assinatura",
    sign_in_to_confirm: "Entre na sua conta para confirmar o pagamento.",
    none: "Sem assinatura",
    renewing: |day| format!("Assinante até {day}, renova automaticamente"),
    canceled: |day| format!("Assinatura cancelada, vale até {day}"),
    payment_failed: |day| format!("Pagamento recusado: atualize o cartão até {day}"),
    granted: |day| format!("Assinante até {day}"),
    ended: |day| format!("A assinatura terminou em {day}"),
};

/// English.
pub static SUBSCRIPTION_EN: SubscriptionTexts = SubscriptionTexts {
    pt: false,
    title: "Subscription",
    opens: [
        "Online Cubo da Velha: World (players from any country) or National (players from your country only), counting in the world and national rankings.",
        "Mini ranking: make your group, invite friends by player name and play only with them.",
    ],
    per_month: "a month",
    per_year: "a year",
    subscribe: "Subscribe",
    manage: "Manage subscription",
    not_on_sale: "The subscription is not on sale right now. Try again later.",
    sign_in_first: "Sign in to subscribe.",
    in_browser: "Go on in the browser we opened; online play opens here once the payment is confirmed.",
    portal_in_browser: "Go on in the browser we opened; the subscription shows up to date when you open the profile again.",
    confirming: "Confirming the payment…",
    not_confirmed: "The payment is not confirmed yet. If you paid, confirming can take a few minutes: check again in a moment.",
    check_again: "Check again",
    back_to_subscription: "Back to the subscription",
    sign_in_to_confirm: "Sign in to confirm the payment.",
    none: "No subscription",
    renewing: |day| format!("Subscriber until {day}, renews automatically"),
    canceled: |day| format!("Subscription canceled, valid until {day}"),
    payment_failed: |day| format!("Payment refused: update the card by {day}"),
    granted: |day| format!("Subscriber until {day}"),
    ended: |day| format!("The subscription ended on {day}"),
};

/// `YYYY-MM-DD` as the player's language writes dates: `01/01/2027` in Portuguese.
pub fn day(pt: bool, iso: &str) -> String {
    match iso.split('-').collect::<Vec<_>>()[..] {
        [y, m, d] if pt => format!("{d}/{m}/{y}"),
        _ => iso.to_owned(),
    }
}

/// The day the player's sentence names: the end of the period paid for a renewing or canceled
/// subscription (when it renews, or ends), the last day of access otherwise (a refused
/// renewal's grace, a grant).
pub fn shown_day(v: &SubscriptionView) -> Option<&str> {
    match v.paid {
        PaidState::Renewing | PaidState::Canceled => {
            v.paid_through.as_deref().or(v.until.as_deref())
        }
        PaidState::PaymentFailed | PaidState::None => v.until.as_deref(),
    }
}

/// Where the player's subscription stands, as a sentence: paid and renewing, canceled,
/// refused at renewal, granted (no payment, so no renewal), ended, or never. An active
/// subscription always has its last day.
pub fn standing(
    t: &SubscriptionTexts,
    subscriber: bool,
    until: Option<&str>,
    paid: PaidState,
) -> String {
    let Some(until) = until.map(|iso| day(t.pt, iso)) else {
        return t.none.into();
    };
    let said = match (subscriber, paid) {
        (false, _) => t.ended,
        (true, PaidState::Renewing) => t.renewing,
        (true, PaidState::Canceled) => t.canceled,
        (true, PaidState::PaymentFailed) => t.payment_failed,
        (true, PaidState::None) => t.granted,
    };
    said(&until)
}

/// Currencies without a minor unit (as Stripe counts them): their amounts are whole.
const WHOLE_CURRENCIES: [&str; 16] = [
    "BIF", "CLP", "DJF", "GNF", "JPY", "KMF", "KRW", "MGA", "PYG", "RWF", "UGX", "VND", "VUV",
    "XAF", "XOF", "XPF",
];

/// `amount` in minor units written with its separators: `1.234,56` in Portuguese,
/// `1,234.56` in English.
fn number(amount: u64, currency: &str, pt: bool) -> String {
    let (group, point) = if pt { ('.', ',') } else { (',', '.') };
    let cents = !WHOLE_CURRENCIES.contains(&currency);
    let (whole, minor) = if cents {
        (amount / 100, Some(amount % 100))
    } else {
        (amount, None)
    };
    let digits = whole.to_string();
    let mut text = String::new();
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            text.push(group);
        }
        text.push(digit);
    }
    if let Some(minor) = minor {
        text.push(point);
        text.push_str(&format!("{minor:02}"));
    }
    text
}

/// A plan's price and period as the player's language writes them: `R$ 9,90 por mês`,
/// `R$9.90 a month`. Symbol and number never part at the end of a line.
pub fn price(t: &SubscriptionTexts, plan: &Plan) -> String {
    let currency = plan.currency.to_ascii_uppercase();
    let amount = number(plan.amount, &currency, t.pt);
    let money = match (currency.as_str(), t.pt) {
        ("BRL", true) => format!("R$\u{a0}{amount}"),
        ("BRL", false) => format!("R${amount}"),
        ("USD", true) => format!("US$\u{a0}{amount}"),
        ("USD", false) => format!("${amount}"),
        ("EUR", true) => format!("€\u{a0}{amount}"),
        ("EUR", false) => format!("€{amount}"),
        (code, _) => format!("{code}\u{a0}{amount}"),
    };
    let period = match plan.period {
        Period::Month => t.per_month,
        Period::Year => t.per_year,
    };
    format!("{money} {period}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(amount: u64, currency: &str, period: Period) -> Plan {
        Plan {
            amount,
            currency: currency.into(),
            period,
        }
    }

    /// Prices as a written sentence, with ordinary spaces for reading.
    fn read(t: &SubscriptionTexts, amount: u64, currency: &str, period: Period) -> String {
        price(t, &plan(amount, currency, period)).replace('\u{a0}', " ")
    }

    #[test]
    fn on_a03_the_price_is_written_the_way_each_language_writes_money() {
        use Period::*;
        let (pt, en) = (&SUBSCRIPTION_PT, &SUBSCRIPTION_EN);
        assert_eq!(read(pt, 990, "BRL", Month), "R$ 9,90 por mês");
        assert_eq!(read(en, 990, "BRL", Month), "R$9.90 a month");
        assert_eq!(read(pt, 9900, "BRL", Year), "R$ 99,00 por ano");
        assert_eq!(read(en, 9900, "brl", Year), "R$99.00 a year");
        assert_eq!(read(pt, 499, "USD", Month), "US$ 4,99 por mês");
        assert_eq!(read(en, 499, "USD", Month), "$4.99 a month");
        assert_eq!(read(pt, 5, "EUR", Month), "€ 0,05 por mês");
        assert_eq!(read(en, 12_345_678, "EUR", Year), "€123,456.78 a year");
        assert_eq!(read(pt, 12_345_678, "EUR", Year), "€ 123.456,78 por ano");
        assert_eq!(read(en, 1200, "JPY", Month), "JPY 1,200 a month");
        assert_eq!(read(pt, 2500, "GBP", Month), "GBP 25,00 por mês");
        // The symbol stays with its number when the line breaks.
        assert_eq!(price(pt, &plan(990, "BRL", Month)), "R$\u{a0}9,90 por mês");
    }

    #[test]
    fn on_a03_every_standing_reads_with_its_day_in_both_languages() {
        use PaidState::*;
        let (pt, en) = (&SUBSCRIPTION_PT, &SUBSCRIPTION_EN);
        let day = Some("2027-01-01");
        assert_eq!(
            standing(pt, true, day, Renewing),
            "Assinante até 01/01/2027, renova automaticamente"
        );
        assert_eq!(
            standing(pt, true, day, Canceled),
            "Assinatura cancelada, vale até 01/01/2027"
        );
        assert_eq!(
            standing(pt, true, day, PaymentFailed),
            "Pagamento recusado: atualize o cartão até 01/01/2027"
        );
        assert_eq!(standing(pt, true, day, None), "Assinante até 01/01/2027");
        assert_eq!(
            standing(pt, false, day, None),
            "A assinatura terminou em 01/01/2027"
        );
        assert_eq!(standing(pt, false, Option::None, None), "Sem assinatura");
        assert_eq!(
            standing(en, true, day, Renewing),
            "Subscriber until 2027-01-01, renews automatically"
        );
        assert_eq!(
            standing(en, true, day, Canceled),
            "Subscription canceled, valid until 2027-01-01"
        );
        assert_eq!(
            standing(en, true, day, PaymentFailed),
            "Payment refused: update the card by 2027-01-01"
        );
        assert_eq!(standing(en, true, day, None), "Subscriber until 2027-01-01");
        assert_eq!(
            standing(en, false, day, Canceled),
            "The subscription ended on 2027-01-01"
        );
        assert_eq!(standing(en, false, Option::None, None), "No subscription");
    }

    #[test]
    fn on_a03_a_renewing_plan_names_its_renewal_and_a_refused_one_its_grace() {
        let view = |paid| SubscriptionView {
            plans: Vec::new(),
            subscriber: true,
            until: Some("2027-01-04".into()),
            paid_through: Some("2027-01-01".into()),
            paid,
            manageable: true,
        };
        assert_eq!(shown_day(&view(PaidState::Renewing)), Some("2027-01-01"));
        assert_eq!(shown_day(&view(PaidState::Canceled)), Some("2027-01-01"));
        assert_eq!(
            shown_day(&view(PaidState::PaymentFailed)),
            Some("2027-01-04")
        );
        let granted = SubscriptionView {
            paid_through: None,
            ..view(PaidState::None)
        };
        assert_eq!(shown_day(&granted), Some("2027-01-04"));
    }
}
