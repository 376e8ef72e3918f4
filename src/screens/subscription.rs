//! The subscription (ON-A03): what it opens and its price, subscribing at the payment
//! provider's checkout, managing it at the provider's portal, and the wait for the payment's
//! confirmation once the checkout sends the player back.

use dioxus::prelude::*;
use velha_api::{ErrorCode, SubscriptionView};

use super::{SignInFirst, TopBar};
use crate::app::{SUBSCRIPTION_FROM, Screen, use_texts};
use crate::components::warning::warning;
use crate::online::client::{self, Problem};
use crate::online::membership::{Membership, remember, use_membership};
use crate::online::subscription_texts::{price, shown_day, standing};
use crate::online::texts::sentence;
use crate::platform;
use crate::request::use_request;

/// How long the confirmation is awaited. On the web the provider tells the server a moment
/// after the player is back; on the desktop the player is still paying in the browser.
const PATIENCE_MS: f64 = if cfg!(target_arch = "wasm32") {
    120_000.0
} else {
    600_000.0
};
/// How often the server is asked meanwhile.
const ASK_EVERY_MS: u32 = 1_500;

/// "Assinar" where online play or the mini ranking is refused, on the screen `from`: it leads
/// to the subscription.
#[component]
pub fn SubscribeLink(go: EventHandler<Screen>, from: Screen) -> Element {
    let s = use_texts().subscription();
    rsx! {
        button { class: "primary wide", "data-action": "subscribe",
            onclick: move |_| {
                SUBSCRIPTION_FROM.set(from);
                go.call(Screen::Subscription)
            },
            "{s.subscribe}"
        }
    }
}

/// The subscription screen: what it opens, then the price and "Assinar", or the player's
/// standing and "Gerenciar assinatura".
#[component]
pub fn SubscriptionScreen(go: EventHandler<Screen>) -> Element {
    let texts = use_texts();
    let s = texts.subscription();
    rsx! {
        TopBar { title: s.title, go, up: Screen::Subscription.up() }
        section { class: "offer",
            h2 { "{texts.online_play}" }
            ul {
                for line in s.opens {
                    li { "{line}" }
                }
            }
            match use_membership()() {
                Membership::Checking => rsx! {
                    p { class: "muted", role: "status", "{texts.checking}" }
                },
                Membership::Guest => rsx! {
                    SignInFirst { says: s.sign_in_first, back: Screen::Subscription, go }
                },
                Membership::Member(_) => rsx! { Offer { go } },
            }
        }
    }
}

/// `GET /api/subscription`'s answer, once it came.
pub type Answer = Option<Result<SubscriptionView, Problem>>;

/// Asks for the subscription into `view`. A session that ended signs the device out, so the
/// screen offers signing in again.
pub fn ask(mut view: Signal<Answer>, mut membership: Signal<Membership>) {
    spawn(async move {
        let answer = client::subscription().await;
        if let Err(Problem::Refused(e)) = &answer
            && e.code == ErrorCode::Unauthorized
        {
            remember(false);
            membership.set(Membership::Guest);
        }
        view.set(Some(answer));
    });
}

/// What a signed-in player is offered, from `GET /api/subscription`.
#[component]
fn Offer(go: EventHandler<Screen>) -> Element {
    let texts = use_texts();
    let (s, o) = (texts.subscription(), texts.online());
    let membership = use_membership();
    let mut view = use_signal(|| None);
    use_hook(move || ask(view, membership));
    match view() {
        None => rsx! { p { class: "muted", role: "status", "{o.working}" } },
        Some(Err(refused)) => rsx! {
            {warning(&sentence(o, &refused), "subscription",
                // Cleared, the screen shows it is reading, and a second tap before it redraws
                // asks no second time.
                refused.passing().then(|| EventHandler::new(move |()| if view.peek().is_some() {
                    view.set(None);
                    ask(view, membership);
                })))}
        },
        Some(Ok(v)) => {
            let said = v
                .until
                .is_some()
                .then(|| standing(s, v.subscriber, shown_day(&v), v.paid));
            rsx! {
                if let Some(said) = said {
                    p { class: "standing", "data-subscription": "{v.subscriber}", "{said}" }
                }
                if v.subscriber {
                    button { class: "primary wide", "data-action": "play-online",
                        onclick: move |_| go.call(Screen::Online), "{texts.play_online}" }
                } else if let Some(plan) = v.plans.first() {
                    // The checkout sells the server's plan: the first one listed.
                    p { class: "price", "data-price": "{plan.amount}", "{price(s, plan)}" }
                    ProviderButton { page: PaymentPage::Checkout, go }
                } else {
                    p { "data-problem": "not-on-sale", "{s.not_on_sale}" }
                }
                if v.manageable {
                    ProviderButton { page: PaymentPage::Portal, go }
                }
            }
        }
    }
}

/// One of the payment provider's pages.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PaymentPage {
    /// Paying for the subscription.
    Checkout,
    /// The customer portal: canceling, changing the card.
    Portal,
}

/// Opens one of the provider's pages: the web tab goes there and comes back to the app's
/// address; the desktop opens the system browser, and after a checkout waits for the payment.
#[component]
pub fn ProviderButton(page: PaymentPage, go: EventHandler<Screen>) -> Element {
    let texts = use_texts();
    let (s, o) = (texts.subscription(), texts.online());
    // What it said: the sentence and its class.
    let request = use_request::<(&'static str, String)>();
    let (class, action, label) = match page {
        PaymentPage::Checkout => ("primary wide", "checkout", s.subscribe),
        PaymentPage::Portal => ("wide", "manage-subscription", s.manage),
    };
    let open = move |_| {
        request.run(async move {
            let asked = match page {
                PaymentPage::Checkout => client::checkout(texts.lang).await,
                PaymentPage::Portal => client::portal(texts.lang).await,
            };
            let url = match asked {
                Ok(provider) => provider.url,
                Err(refused) => return Some(("warning", sentence(o, &refused))),
            };
            // Only a web page, never a script, whatever the answer says.
            let web = url.starts_with("https://") || url.starts_with("http://");
            if !(web && platform::open_page(&url).await) {
                return Some(("warning", o.google_no_browser.into()));
            }
            // The web tab is on its way to the provider: it stays busy until it leaves.
            if cfg!(target_arch = "wasm32") {
                std::future::pending::<()>().await;
            }
            match page {
                PaymentPage::Checkout => {
                    go.call(Screen::ConfirmingPayment);
                    None
                }
                PaymentPage::Portal => Some(("muted", s.portal_in_browser.into())),
            }
        })
    };
    rsx! {
        button { class, "data-action": action, disabled: request.busy(), "aria-busy": "{request.busy()}",
            onclick: open,
            if request.busy() { "{o.working}" } else { "{label}" }
        }
        if let Some((class, says)) = request.said() {
            p { class, role: "alert", "data-problem": action, "{says}" }
        }
    }
}

/// Back from the checkout: signed in, the wait; signed out (the session lost on the way),
/// signing in first and back.
#[component]
pub fn ConfirmingPaymentScreen(go: EventHandler<Screen>) -> Element {
    let texts = use_texts();
    let s = texts.subscription();
    rsx! {
        TopBar { title: s.title, go }
        match use_membership()() {
            Membership::Checking => rsx! {
                p { class: "muted", role: "status", "{texts.checking}" }
            },
            Membership::Guest => rsx! {
                SignInFirst { says: s.sign_in_to_confirm, back: Screen::ConfirmingPayment, go }
            },
            Membership::Member(_) => rsx! { Confirming { go } },
        }
    }
}

/// Asks the server until the provider's notice of the payment reached it, then opens the
/// lobby; after `PATIENCE_MS`, says so, with a way to ask again or go back.
#[component]
fn Confirming(go: EventHandler<Screen>) -> Element {
    let s = use_texts().subscription();
    let mut membership = use_membership();
    let mut gave_up = use_signal(|| false);
    let mut wait = move || {
        gave_up.set(false);
        spawn(async move {
            let give_up = platform::now_ms() + PATIENCE_MS;
            while platform::now_ms() < give_up {
                match client::subscription().await {
                    Ok(view) if view.subscriber => {
                        // Online play reads the standing from the account.
                        let signed_in = membership.peek().clone();
                        if let Membership::Member(mut account) = signed_in {
                            account.subscriber = true;
                            account.subscribed_until = view.until;
                            membership.set(Membership::Member(account));
                        }
                        go.call(Screen::Online);
                        return;
                    }
                    Err(Problem::Refused(e)) if e.code == ErrorCode::Unauthorized => {
                        remember(false);
                        membership.set(Membership::Guest);
                        return;
                    }
                    // Not yet, or no answer this time: the next ask may bring it.
                    _ => platform::sleep_ms(ASK_EVERY_MS).await,
                }
            }
            gave_up.set(true);
        });
    };
    use_hook(wait);
    if gave_up() {
        return rsx! {
            p { class: "warning", role: "alert", "data-problem": "not-confirmed", "{s.not_confirmed}" }
            button { class: "primary wide", "data-action": "check-again",
                onclick: move |_| wait(), "{s.check_again}" }
            button { class: "wide", "data-action": "subscription",
                onclick: move |_| go.call(Screen::Subscription), "{s.back_to_subscription}" }
        };
    }
    rsx! {
        p { class: "status", role: "status", "aria-busy": "true", "data-confirming": "true",
            "{s.confirming}"
        }
        if cfg!(not(target_arch = "wasm32")) {
            p { class: "muted hint", "{s.in_browser}" }
        }
    }
}
