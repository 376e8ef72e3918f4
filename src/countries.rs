//! Country names in the player's language (ON-A02): the account's country as a name, and the
//! list the player picks it from. The codes are `velha_api::COUNTRIES`, the ones the server
//! accepts.

/// (code, Brazilian Portuguese, English) for each of `velha_api::COUNTRIES`, in code order.
/// Short everyday names, as CLDR has them, rather than ISO's formal ones ("Bolívia", not
/// "Bolívia, Estado Plurinacional da").
const NAMES: [(&str, &str, &str); velha_api::COUNTRIES.len()] = [
    ("AD", "Andorra", "Andorra"),
    ("AE", "Emirados Árabes Unidos", "United Arab Emirates"),
    ("AF", "Afeganistão", "Afghanistan"),
    ("AG", "Antígua e Barbuda", "Antigua and Barbuda"),
    ("AI", "Anguila", "Anguilla"),
    ("AL", "Albânia", "Albania"),
    ("AM", "Armênia", "Armenia"),
    ("AO", "Angola", "Angola"),
    ("AQ", "Antártida", "Antarctica"),
    ("AR", "Argentina", "Argentina"),
    ("AS", "Samoa Americana", "American Samoa"),
    ("AT", "Áustria", "Austria"),
    ("AU", "Austrália", "Australia"),
    ("AW", "Aruba", "Aruba"),
    ("AX", "Ilhas Åland", "Åland Islands"),
    ("AZ", "Azerbaijão", "Azerbaijan"),
    ("BA", "Bósnia e Herzegovina", "Bosnia and Herzegovina"),
    ("BB", "Barbados", "Barbados"),
    ("BD", "Bangladesh", "Bangladesh"),
    ("BE", "Bélgica", "Belgium"),
    ("BF", "Burkina Faso", "Burkina Faso"),
    ("BG", "Bulgária", "Bulgaria"),
    ("BH", "Bahrein", "Bahrain"),
    ("BI", "Burundi", "Burundi"),
    ("BJ", "Benin", "Benin"),
    ("BL", "São Bartolomeu", "Saint Barthélemy"),
    ("BM", "Bermuda", "Bermuda"),
    ("BN", "Brunei", "Brunei"),
    ("BO", "Bolívia", "Bolivia"),
    ("BQ", "Países Baixos Caribenhos", "Caribbean Netherlands"),
    ("BR", "Brasil", "Brazil"),
    ("BS", "Bahamas", "Bahamas"),
    ("BT", "Butão", "Bhutan"),
    ("BV", "Ilha Bouvet", "Bouvet Island"),
    ("BW", "Botsuana", "Botswana"),
    ("BY", "Bielorrússia", "Belarus"),
    ("BZ", "Belize", "Belize"),
    ("CA", "Canadá", "Canada"),
    ("CC", "Ilhas Cocos (Keeling)", "Cocos (Keeling) Islands"),
    ("CD", "República Democrática do Congo", "DR Congo"),
    (
        "CF",
        "República Centro-Africana",
        "Central African Republic",
    ),
    ("CG", "Congo", "Congo"),
    ("CH", "Suíça", "Switzerland"),
    ("CI", "Costa do Marfim", "Côte d'Ivoire"),
    ("CK", "Ilhas Cook", "Cook Islands"),
    ("CL", "Chile", "Chile"),
    ("CM", "Camarões", "Cameroon"),
    ("CN", "China", "China"),
    ("CO", "Colômbia", "Colombia"),
    ("CR", "Costa Rica", "Costa Rica"),
    ("CU", "Cuba", "Cuba"),
    ("CV", "Cabo Verde", "Cabo Verde"),
    ("CW", "Curaçao", "Curaçao"),
    ("CX", "Ilha Christmas", "Christmas Island"),
    ("CY", "Chipre", "Cyprus"),
    ("CZ", "Tchéquia", "Czechia"),
    ("DE", "Alemanha", "Germany"),
    ("DJ", "Djibuti", "Djibouti"),
    ("DK", "Dinamarca", "Denmark"),
    ("DM", "Dominica", "Dominica"),
    ("DO", "República Dominicana", "Dominican Republic"),
    ("DZ", "Argélia", "Algeria"),
    ("EC", "Equador", "Ecuador"),
    ("EE", "Estônia", "Estonia"),
    ("EG", "Egito", "Egypt"),
    ("EH", "Saara Ocidental", "Western Sahara"),
    ("ER", "Eritreia", "Eritrea"),
    ("ES", "Espanha", "Spain"),
    ("ET", "Etiópia", "Ethiopia"),
    ("FI", "Finlândia", "Finland"),
    ("FJ", "Fiji", "Fiji"),
    ("FK", "Ilhas Malvinas", "Falkland Islands"),
    ("FM", "Micronésia", "Micronesia"),
    ("FO", "Ilhas Faroé", "Faroe Islands"),
    ("FR", "França", "France"),
    ("GA", "Gabão", "Gabon"),
    ("GB", "Reino Unido", "United Kingdom"),
    ("GD", "Granada", "Grenada"),
    ("GE", "Geórgia", "Georgia"),
    ("GF", "Guiana Francesa", "French Guiana"),
    ("GG", "Guernsey", "Guernsey"),
    ("GH", "Gana", "Ghana"),
    ("GI", "Gibraltar", "Gibraltar"),
    ("GL", "Groenlândia", "Greenland"),
    ("GM", "Gâmbia", "Gambia"),
    ("GN", "Guiné", "Guinea"),
    ("GP", "Guadalupe", "Guadeloupe"),
    ("GQ", "Guiné Equatorial", "Equatorial Guinea"),
    ("GR", "Grécia", "Greece"),
    (
        "GS",
        "Ilhas Geórgia do Sul e Sandwich do Sul",
        "South Georgia and the South Sandwich Islands",
    ),
    ("GT", "Guatemala", "Guatemala"),
    ("GU", "Guam", "Guam"),
    ("GW", "Guiné-Bissau", "Guinea-Bissau"),
    ("GY", "Guiana", "Guyana"),
    ("HK", "Hong Kong", "Hong Kong"),
    ("HM", "Ilhas Heard e McDonald", "Heard and McDonald Islands"),
    ("HN", "Honduras", "Honduras"),
    ("HR", "Croácia", "Croatia"),
    ("HT", "Haiti", "Haiti"),
    ("HU", "Hungria", "Hungary"),
    ("ID", "Indonésia", "Indonesia"),
    ("IE", "Irlanda", "Ireland"),
    ("IL", "Israel", "Israel"),
    ("IM", "Ilha de Man", "Isle of Man"),
    ("IN", "Índia", "India"),
    (
        "IO",
        "Território Britânico do Oceano Índico",
        "British Indian Ocean Territory",
    ),
    ("IQ", "Iraque", "Iraq"),
    ("IR", "Irã", "Iran"),
    ("IS", "Islândia", "Iceland"),
    ("IT", "Itália", "Italy"),
    ("JE", "Jersey", "Jersey"),
    ("JM", "Jamaica", "Jamaica"),
    ("JO", "Jordânia", "Jordan"),
    ("JP", "Japão", "Japan"),
    ("KE", "Quênia", "Kenya"),
    ("KG", "Quirguistão", "Kyrgyzstan"),
    ("KH", "Camboja", "Cambodia"),
    ("KI", "Kiribati", "Kiribati"),
    ("KM", "Comores", "Comoros"),
    ("KN", "São Cristóvão e Névis", "Saint Kitts and Nevis"),
    ("KP", "Coreia do Norte", "North Korea"),
    ("KR", "Coreia do Sul", "South Korea"),
    ("KW", "Kuwait", "Kuwait"),
    ("KY", "Ilhas Cayman", "Cayman Islands"),
    ("KZ", "Cazaquistão", "Kazakhstan"),
    ("LA", "Laos", "Laos"),
    ("LB", "Líbano", "Lebanon"),
    ("LC", "Santa Lúcia", "Saint Lucia"),
    ("LI", "Liechtenstein", "Liechtenstein"),
    ("LK", "Sri Lanka", "Sri Lanka"),
    ("LR", "Libéria", "Liberia"),
    ("LS", "Lesoto", "Lesotho"),
    ("LT", "Lituânia", "Lithuania"),
    ("LU", "Luxemburgo", "Luxembourg"),
    ("LV", "Letônia", "Latvia"),
    ("LY", "Líbia", "Libya"),
    ("MA", "Marrocos", "Morocco"),
    ("MC", "Mônaco", "Monaco"),
    ("MD", "Moldávia", "Moldova"),
    ("ME", "Montenegro", "Montenegro"),
    ("MF", "São Martinho", "Saint Martin"),
    ("MG", "Madagascar", "Madagascar"),
    ("MH", "Ilhas Marshall", "Marshall Islands"),
    ("MK", "Macedônia do Norte", "North Macedonia"),
    ("ML", "Mali", "Mali"),
    ("MM", "Myanmar", "Myanmar"),
    ("MN", "Mongólia", "Mongolia"),
    ("MO", "Macau", "Macao"),
    ("MP", "Ilhas Marianas do Norte", "Northern Mariana Islands"),
    ("MQ", "Martinica", "Martinique"),
    ("MR", "Mauritânia", "Mauritania"),
    ("MS", "Montserrat", "Montserrat"),
    ("MT", "Malta", "Malta"),
    ("MU", "Maurício", "Mauritius"),
    ("MV", "Maldivas", "Maldives"),
    ("MW", "Malaui", "Malawi"),
    ("MX", "México", "Mexico"),
    ("MY", "Malásia", "Malaysia"),
    ("MZ", "Moçambique", "Mozambique"),
    ("NA", "Namíbia", "Namibia"),
    ("NC", "Nova Caledônia", "New Caledonia"),
    ("NE", "Níger", "Niger"),
    ("NF", "Ilha Norfolk", "Norfolk Island"),
    ("NG", "Nigéria", "Nigeria"),
    ("NI", "Nicarágua", "Nicaragua"),
    ("NL", "Países Baixos", "Netherlands"),
    ("NO", "Noruega", "Norway"),
    ("NP", "Nepal", "Nepal"),
    ("NR", "Nauru", "Nauru"),
    ("NU", "Niue", "Niue"),
    ("NZ", "Nova Zelândia", "New Zealand"),
    ("OM", "Omã", "Oman"),
    ("PA", "Panamá", "Panama"),
    ("PE", "Peru", "Peru"),
    ("PF", "Polinésia Francesa", "French Polynesia"),
    ("PG", "Papua-Nova Guiné", "Papua New Guinea"),
    ("PH", "Filipinas", "Philippines"),
    ("PK", "Paquistão", "Pakistan"),
    ("PL", "Polônia", "Poland"),
    ("PM", "São Pedro e Miquelon", "Saint Pierre and Miquelon"),
    ("PN", "Ilhas Pitcairn", "Pitcairn Islands"),
    ("PR", "Porto Rico", "Puerto Rico"),
    ("PS", "Palestina", "Palestine"),
    ("PT", "Portugal", "Portugal"),
    ("PW", "Palau", "Palau"),
    ("PY", "Paraguai", "Paraguay"),
    ("QA", "Catar", "Qatar"),
    ("RE", "Reunião", "Réunion"),
    ("RO", "Romênia", "Romania"),
    ("RS", "Sérvia", "Serbia"),
    ("RU", "Rússia", "Russia"),
    ("RW", "Ruanda", "Rwanda"),
    ("SA", "Arábia Saudita", "Saudi Arabia"),
    ("SB", "Ilhas Salomão", "Solomon Islands"),
    ("SC", "Seychelles", "Seychelles"),
    ("SD", "Sudão", "Sudan"),
    ("SE", "Suécia", "Sweden"),
    ("SG", "Singapura", "Singapore"),
    ("SH", "Santa Helena", "Saint Helena"),
    ("SI", "Eslovênia", "Slovenia"),
    ("SJ", "Svalbard e Jan Mayen", "Svalbard and Jan Mayen"),
    ("SK", "Eslováquia", "Slovakia"),
    ("SL", "Serra Leoa", "Sierra Leone"),
    ("SM", "São Marino", "San Marino"),
    ("SN", "Senegal", "Senegal"),
    ("SO", "Somália", "Somalia"),
    ("SR", "Suriname", "Suriname"),
    ("SS", "Sudão do Sul", "South Sudan"),
    ("ST", "São Tomé e Príncipe", "São Tomé and Príncipe"),
    ("SV", "El Salvador", "El Salvador"),
    ("SX", "Sint Maarten", "Sint Maarten"),
    ("SY", "Síria", "Syria"),
    ("SZ", "Essuatíni", "Eswatini"),
    ("TC", "Ilhas Turks e Caicos", "Turks and Caicos Islands"),
    ("TD", "Chade", "Chad"),
    (
        "TF",
        "Territórios Franceses do Sul",
        "French Southern Territories",
    ),
    ("TG", "Togo", "Togo"),
    ("TH", "Tailândia", "Thailand"),
    ("TJ", "Tadjiquistão", "Tajikistan"),
    ("TK", "Tokelau", "Tokelau"),
    ("TL", "Timor-Leste", "Timor-Leste"),
    ("TM", "Turcomenistão", "Turkmenistan"),
    ("TN", "Tunísia", "Tunisia"),
    ("TO", "Tonga", "Tonga"),
    ("TR", "Turquia", "Türkiye"),
    ("TT", "Trinidad e Tobago", "Trinidad and Tobago"),
    ("TV", "Tuvalu", "Tuvalu"),
    ("TW", "Taiwan", "Taiwan"),
    ("TZ", "Tanzânia", "Tanzania"),
    ("UA", "Ucrânia", "Ukraine"),
    ("UG", "Uganda", "Uganda"),
    (
        "UM",
        "Ilhas Menores Distantes dos EUA",
        "U.S. Outlying Islands",
    ),
    ("US", "Estados Unidos", "United States"),
    ("UY", "Uruguai", "Uruguay"),
    ("UZ", "Uzbequistão", "Uzbekistan"),
    ("VA", "Vaticano", "Vatican City"),
    (
        "VC",
        "São Vicente e Granadinas",
        "Saint Vincent and the Grenadines",
    ),
    ("VE", "Venezuela", "Venezuela"),
    ("VG", "Ilhas Virgens Britânicas", "British Virgin Islands"),
    ("VI", "Ilhas Virgens Americanas", "U.S. Virgin Islands"),
    ("VN", "Vietnã", "Vietnam"),
    ("VU", "Vanuatu", "Vanuatu"),
    ("WF", "Wallis e Futuna", "Wallis and Futuna"),
    ("WS", "Samoa", "Samoa"),
    ("XK", "Kosovo", "Kosovo"),
    ("YE", "Iêmen", "Yemen"),
    ("YT", "Mayotte", "Mayotte"),
    ("ZA", "África do Sul", "South Africa"),
    ("ZM", "Zâmbia", "Zambia"),
    ("ZW", "Zimbábue", "Zimbabwe"),
];

fn portuguese(lang: &str) -> bool {
    lang.starts_with("pt")
}

/// The name of the country `code` in `lang` (the texts' `lang`: `pt-BR` or `en`); the code
/// itself when no country has it.
pub fn country_name(code: &str, lang: &str) -> String {
    match NAMES.binary_search_by(|(c, _, _)| c.cmp(&code)) {
        Ok(i) if portuguese(lang) => NAMES[i].1.to_owned(),
        Ok(i) => NAMES[i].2.to_owned(),
        Err(_) => code.to_owned(),
    }
}

/// Every country as (code, name in `lang`), in that language's alphabetical order.
pub fn countries(lang: &str) -> Vec<(&'static str, &'static str)> {
    let pt = portuguese(lang);
    let mut all: Vec<_> = NAMES
        .iter()
        .map(|&(code, in_pt, in_en)| (code, if pt { in_pt } else { in_en }))
        .collect();
    all.sort_by_cached_key(|&(_, name)| (folded(name), name));
    all
}

/// `text` as the alphabet orders it and a search finds it: lower case without accents, so
/// "Áustria" sorts among the A's and "sao" finds "São Tomé". Case is folded for Latin-1, the
/// letters of every name in both languages: the whole Unicode lowercase table (about 12 KB) would
/// come with the account's screen for letters no name has.
pub fn folded(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            'À'..='Þ' if c != '×' => char::from(c as u8 + 0x20),
            c => c.to_ascii_lowercase(),
        })
        .map(|c| match c {
            'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' => 'a',
            'ç' => 'c',
            'è' | 'é' | 'ê' | 'ë' => 'e',
            'ì' | 'í' | 'î' | 'ï' => 'i',
            'ñ' => 'n',
            'ò' | 'ó' | 'ô' | 'õ' | 'ö' => 'o',
            'ù' | 'ú' | 'û' | 'ü' => 'u',
            'ý' | 'ÿ' => 'y',
            other => other,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn on_a02_every_country_the_server_accepts_has_a_name_in_both_languages() {
        let codes: Vec<&str> = NAMES.iter().map(|&(code, _, _)| code).collect();
        assert_eq!(codes, velha_api::COUNTRIES);
        for &(code, pt, en) in &NAMES {
            assert!(!pt.is_empty() && !en.is_empty(), "{code}");
        }
        assert_eq!(country_name("BR", "pt-BR"), "Brasil");
        assert_eq!(country_name("BR", "en"), "Brazil");
        assert_eq!(
            country_name("ZZ", "pt-BR"),
            "ZZ",
            "an old code is shown as it is"
        );
    }

    #[test]
    fn on_a02_countries_are_listed_in_the_players_alphabet() {
        let names = |lang| {
            countries(lang)
                .into_iter()
                .map(|(_, n)| n)
                .collect::<Vec<_>>()
        };
        let pt = names("pt-BR");
        let at = |name| pt.iter().position(|n| *n == name).unwrap();
        assert_eq!(pt[0], "Afeganistão");
        assert!(
            at("África do Sul") < at("Albânia"),
            "accents sort as their letter"
        );
        assert!(at("Austrália") < at("Áustria"));
        assert!(at("Zimbábue") == pt.len() - 1);
        let en = names("en");
        assert_eq!(en[0], "Afghanistan");
        assert!(
            en.iter().position(|n| *n == "Brazil") > en.iter().position(|n| *n == "Bouvet Island")
        );
        assert_eq!(folded("São Tomé"), "sao tome");
    }

    /// The fold by Unicode's full lowercase mapping, which `folded` must agree with wherever a
    /// name or a player's search of Latin-1 letters can reach.
    fn folded_by_unicode(text: &str) -> String {
        folded(
            &text
                .chars()
                .flat_map(char::to_lowercase)
                .collect::<String>(),
        )
    }

    #[test]
    fn on_a02_the_search_folds_every_latin_letter_as_unicode_does() {
        let latin: String = (' '..='ÿ').collect();
        assert_eq!(folded(&latin), folded_by_unicode(&latin));
        for &(code, pt, en) in &NAMES {
            for name in [pt, en] {
                assert_eq!(folded(name), folded_by_unicode(name), "{code}");
                let shouted: String = name.chars().flat_map(char::to_uppercase).collect();
                assert_eq!(folded(&shouted), folded(name), "{code}: {shouted}");
            }
        }
    }
}
