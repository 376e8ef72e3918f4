use super::*;

fn offensive(names: &[&str]) {
    for name in names {
        assert_eq!(refused(name), Some(Refused::Offensive), "{name:?}");
    }
}

fn reserved(names: &[&str]) {
    for name in names {
        assert_eq!(refused(name), Some(Refused::Reserved), "{name:?}");
    }
}

fn accepted(names: &[&str]) {
    for name in names {
        assert_eq!(refused(name), None, "{name:?} ({:?})", normalise(name));
    }
}

#[test]
fn every_listed_word_is_refused() {
    let mut checked = 0;
    for list in [PT, EN, PT_BR] {
        for entry in entries(list) {
            assert_eq!(refused(entry), Some(Refused::Offensive), "{entry:?}");
            checked += 1;
        }
    }
    for entry in entries(RESERVED) {
        assert_eq!(refused(entry), Some(Refused::Reserved), "{entry:?}");
        checked += 1;
    }
    assert!(checked > 400, "the lists were read ({checked} entries)");
}

#[test]
fn every_listed_word_folds_to_letters() {
    // An entry that folds to nothing or to one letter would refuse nothing or everything.
    for list in [PT, EN, PT_BR, RESERVED] {
        for entry in entries(list) {
            assert!(normalise(entry).chars().count() >= 2, "{entry:?}");
        }
    }
}

#[test]
fn the_lists_are_sorted_and_have_no_duplicates() {
    for list in [PT, EN, PT_BR, RESERVED] {
        let lines: Vec<&str> = list.lines().collect();
        assert!(lines.windows(2).all(|w| w[0] < w[1]), "{lines:?}");
        assert!(lines.iter().all(|l| !l.is_empty() && l.trim() == *l));
    }
}

#[test]
fn written_around_words_are_still_refused() {
    offensive(&[
        "puta",
        "Puta",
        "PÚTA",
        "P.u.t.4",
        "P_U_T_A",
        "Pu7a",
        "puuuuta",
        "Putas",
        "Puta123",
        "123puta",
        "Joao_P.u.t.a",
        "xXPutaXx",
        "f_u_c_k",
        "F-U-C-K",
        "fuuuck",
        "fuckyou",
        "xXfuckXx",
        "MotherFucker",
        "ｆｕｃｋ",
        "BuCeTa",
        "buc3t4",
        "c4ralh0",
        "C@r@lho",
        "Caralhoooo",
        "V4i_T0mar_N0_Cu",
        "vaitomarnocu",
        "filhodaputa",
        "Filho.Da.Puta",
        "Cu",
        "Cu_Doce",
        "Pau",
        "Pau_Mole",
        "MeuPau",
        "S1ut",
        "5h1t",
        "$hit",
        "Sh!t",
        "Ass",
        "Asssss",
        "B1tch",
        "80085",
        "S3x",
        "T1T",
        "ViadoRei",
        "Viado",
        "Merda10",
        "porra_loca",
        "Porraaaa",
        "Meu_Ca_Ralho",
        "MeuCaRaLhO",
        "SeuFilhoDaPuta",
        // Diminutives and augmentatives.
        "Merdinha",
        "Caralhudo",
        "Bostinha",
        "Bosteiro",
        "Bucetinha",
        "Arrombadinho",
        "Punheteiro",
        "Cornudo",
        "Cacetao",
    ]);
}

#[test]
fn reserved_names_are_refused_as_reserved() {
    reserved(&[
        "Admin",
        "Adm1n",
        "ADMIN_",
        "admins",
        "Admin_Joao",
        "JoaoAdmin",
        "Moderador_",
        "Moderadora",
        "TheModerator",
        "Mod",
        "mod_oficial",
        "suporte.oficial",
        "Suporte",
        "SuporteTecnico",
        "Support_Team",
        "Staff",
        "Equipe",
        "Sistema",
        "SYSTEM",
        "Root",
        "Oficial",
        "A_Velha",
        "A Velha",
        "Velha",
        "VELHA",
        "Velha_Bot",
        "avelha",
        "Cubo_da_Velha",
        "cubodavelha",
        "JogoDaVelha",
        "xXAdminXx",
    ]);
}

#[test]
fn offensive_outranks_reserved() {
    offensive(&["Admin_Puta", "Suporte.Caralho", "VelhaFuck"]);
}

#[test]
fn ordinary_names_are_accepted() {
    accepted(&[
        // A number after a name is an account's number, not a letter ("Ana1" is no "anal").
        "ana1",
        "Ana_1",
        "bia2",
        "Leo7",
        "jogador1",
        "Carlos455",
        "Bia717",
        "Pau1o",
        "Pau1a",
        "Dick3ns",
        // Portuguese first names, surnames and words that hold a short listed word.
        "Paulo",
        "Paulinho",
        "Paulista",
        "Carolina",
        "Cássio",
        "Cassiano",
        "Assis",
        "Assunção",
        "Bastos",
        "Cunha",
        "Cunhado",
        "Cuca",
        "Kuma",
        "Cubo",
        "Curitiba",
        "Cuiabá",
        "Escudo",
        "Cupido",
        "Documento",
        "computador",
        "Computação",
        "disputa",
        "Reputação",
        "Deputado",
        "Picasso",
        "Picanha",
        "Pica-Pau",
        "PicaPau",
        "Pau-Brasil",
        "analista",
        "Canal",
        "Ana_Luiza",
        "Anastácia",
        "classico",
        "Clássico",
        "assistente",
        "Vassoura",
        "pintor",
        "Pintura",
        "cocada",
        "controla",
        "Rolamento",
        "Sexta",
        "Sextou",
        "Biscoito",
        "Moqueca",
        "Panqueca",
        "Enxaqueca",
        "Bichano",
        "Barbicha",
        "Enviado",
        "Aviador",
        "Chaveado",
        "Invadia",
        "Agropecuária",
        "Derrotismo",
        "Vibratório",
        "Velhaco",
        "Velhinho",
        "Fagundes",
        "Joaquim",
        "Quim",
        "Pinto",
        "Aranha",
        "Amador",
        "Ariano",
        "CavaleiroNegro",
        "Dragão_Negro",
        "Inferno",
        "Cerveja",
        // English names and words.
        "Scunthorpe",
        "Penistone",
        "Essex",
        "Middlesex",
        "Hitchcock",
        "Peacock",
        "Cocktail",
        "Babcock",
        "Cockburn",
        "Titanic",
        "Titan",
        "Tito",
        "Matsushita",
        "Shiitake",
        "Shitake",
        "Hitachi",
        "Badminton",
        "Stafford",
        "Supporter",
        "Modesto",
        "Modelo",
        "Therapist",
        "Thorny",
        "Bonner",
        "Mood",
        "Rapping",
        "Scraping",
        "Trimming",
        "Semenov",
        "Twinkle",
        "Raccoons",
        "Dickens",
        "Dickson",
        "Cumberbatch",
        "Cumming",
        "Button",
        "Butterfly",
        "Cassandra",
        "Nigel",
        "Nigéria",
        "Shota",
        "Sweet_Dreams",
        "Mr_Handsome",
        "Hardcore_Gamer",
        "Playboy",
        "Swammerdam",
        // Two names side by side, a listed word across the seam.
        "Gamer_Dali",
        "GamerDaniela",
        "Lívia_Graça",
        "Bastos_Serra",
        "SantosSérgio",
        "CuboStafford",
        "MiddlesexCamargo",
        "CavaleiroNegroPedro",
        "Bianca_Garrincha",
        "ButtercupPicaPau",
        // Innocent words that hold a listed one.
        "Cacetinho",
        "Porrinha",
        "Biscateiro",
        // Gamer tags and reserved words that are only part of a name.
        "xXSniperXx",
        "xXxDragonxXx",
        "Xuxa",
        "ProGamer2000",
        "Noob_123",
        "Mestre_do_Cubo",
        "Equipe_Rocket",
        "System_of_a_Down",
        "Sistema.Solar",
        "RootBeer",
        "Oficina",
        "kkkkk",
        "As",
        "Ás_do_Cubo",
        "Sala 101",
        "Agent_007",
    ]);
}

#[test]
fn borderline_names_are_decided() {
    // A name that reads as the listed word more often than as the innocent one is refused.
    offensive(&[
        "Dick",
        "Moby_Dick",
        "Butt",
        "Aborto",
        "Xana",
        "Kike",
        "Rapé",
        "Sexy",
    ]);
    // The game's own name and its opponent's, even inside another name.
    reserved(&["Velhas", "A_Velha_Guarda"]);
}

#[test]
fn nothing_to_read_is_accepted() {
    accepted(&["", "___", "-.-", "   ", "!!!", "€€€"]);
}

#[test]
fn normalise_folds_accents_case_leet_and_separators() {
    assert_eq!(normalise("PÚTA"), "puta");
    assert_eq!(normalise("João_da-Silva."), "joaodasilva");
    assert_eq!(normalise("C4r@lh0"), "caralho");
    assert_eq!(normalise("ｆｕｃｋ"), "fuck");
    assert_eq!(normalise("Ação ÇÃO"), "acaocao");
    assert_eq!(normalise("Adm1n"), "admin");
    assert_eq!(normalise("puuuuta"), "puuuuta");
}

#[test]
fn every_reach_and_innocent_entry_is_used() {
    let folded: Vec<String> = [PT, EN, PT_BR, RESERVED]
        .into_iter()
        .flat_map(entries)
        .map(normalise)
        .collect();
    for (word, _) in REACH {
        assert!(folded.iter().any(|f| f == word), "{word:?} is on no list");
    }
    let lists = &*LISTS;
    for innocent in INNOCENT {
        let text: Vec<char> = innocent.chars().collect();
        let holds = |w: &Word| (0..text.len()).any(|i| match_from(&text, i, &w.runs).is_some());
        assert!(
            lists.offensive.0.iter().chain(&lists.reserved.0).any(holds),
            "{innocent:?} holds no listed word"
        );
        assert_eq!(refused(innocent), None, "{innocent:?}");
    }
}

/// A tiny xorshift: the same strings on every run, and no dependency for them.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Accented letters and the plain ones they carry, written out so the test does not lean on
/// the decomposition the crate uses.
const ACCENTED: &[(char, char)] = &[
    ('á', 'a'),
    ('à', 'a'),
    ('â', 'a'),
    ('ã', 'a'),
    ('é', 'e'),
    ('ê', 'e'),
    ('í', 'i'),
    ('ó', 'o'),
    ('ô', 'o'),
    ('õ', 'o'),
    ('ú', 'u'),
    ('ü', 'u'),
    ('ç', 'c'),
    ('ñ', 'n'),
    ('Á', 'A'),
    ('Â', 'A'),
    ('Ã', 'A'),
    ('É', 'E'),
    ('Í', 'I'),
    ('Ó', 'O'),
    ('Õ', 'O'),
    ('Ú', 'U'),
    ('Ç', 'C'),
];

fn strip_accents(s: &str) -> String {
    s.chars()
        .map(|c| {
            ACCENTED
                .iter()
                .find(|(a, _)| *a == c)
                .map_or(c, |&(_, p)| p)
        })
        .collect()
}

#[test]
fn random_names_never_panic_and_are_read_without_accents() {
    let plain: Vec<char> = ('a'..='z')
        .chain('A'..='Z')
        .chain('0'..='9')
        .chain(['_', '-', '.'])
        .collect();
    let words: Vec<&str> = [PT, EN, PT_BR, RESERVED]
        .into_iter()
        .flat_map(entries)
        .collect();
    let mut rng = XorShift(0x5eed_cafe_f00d_d00d);
    let mut hits = 0;
    for _ in 0..10_000 {
        let mut name = String::new();
        for _ in 0..rng.below(24) {
            match rng.below(10) {
                0 => name.push(ACCENTED[rng.below(ACCENTED.len())].0),
                // A listed word now and then, so refusals are exercised too.
                1 if rng.below(4) == 0 => name.push_str(words[rng.below(words.len())]),
                _ => name.push(plain[rng.below(plain.len())]),
            }
        }
        let verdict = refused(&name);
        assert_eq!(verdict, refused(&name), "{name:?} is read the same twice");
        assert_eq!(verdict, refused(&strip_accents(&name)), "{name:?}");
        hits += usize::from(verdict.is_some());
    }
    assert!((100..9_000).contains(&hits), "{hits} of 10 000 refused");
}
