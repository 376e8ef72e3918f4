//! The cube's colours, as a person picks them (sRGB), with their linear values for shading.

/// An sRGB colour, 0–255 per channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Srgb(pub u8, pub u8, pub u8);

impl Srgb {
    /// The linear-light value of each channel, 0–1, for lighting maths.
    pub fn linear(self) -> [f32; 3] {
        let f = |c: u8| {
            let c = f32::from(c) / 255.0;
            if c <= 0.04045 {
                c / 12.92
            } else {
                ((c + 0.055) / 1.055).powf(2.4)
            }
        };
        [f(self.0), f(self.1), f(self.2)]
    }
}

/// Background behind the cube.
pub const BACKGROUND: Srgb = Srgb(0x1d, 0x23, 0x3b);
/// Bodies of the cubies not on side 1: dark, slightly blue.
pub const BODY: Srgb = Srgb(0x2a, 0x2d, 0x3a);
/// Bodies of the cubies on side 1 (CUBE-V01): sky blue.
pub const SIDE1_BODY: Srgb = Srgb(0x5c, 0xbc, 0xf0);
/// A blank sticker.
pub const BLANK: Srgb = Srgb(0xf6, 0xf6, 0xf2);
/// A spent sticker, and the ground of X and O.
pub const SPENT: Srgb = Srgb(0xf5, 0xc5, 0x18);
/// The X symbol: deep blue, a cross.
pub const X_MARK: Srgb = Srgb(0x1f, 0x4e, 0xd8);
/// The O symbol: red, a ring.
pub const O_MARK: Srgb = Srgb(0xd8, 0x2a, 0x2a);
/// The ring around the stickers of a winning line: a green no other part of the cube has.
pub const WIN: Srgb = Srgb(0x3c, 0xf0, 0x6e);

/// The colour class a pixel belongs to, for tests that read rendered images.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ColourClass {
    /// Near [`BLANK`].
    Blank,
    /// Near [`SPENT`].
    Spent,
    /// Near [`X_MARK`].
    X,
    /// Near [`O_MARK`].
    O,
    /// Near [`SIDE1_BODY`], the sky-blue cubies of side 1.
    SkyBlue,
    /// Near [`WIN`], the ring of a winning line.
    Win,
    /// Anything else.
    Other,
}

/// Classifies a rendered sRGB pixel by hue and saturation, so that light and shade do not
/// matter.
pub fn classify(rgb: [u8; 3]) -> ColourClass {
    let [r, g, b] = rgb.map(f32::from);
    let (max, min) = (r.max(g).max(b), r.min(g).min(b));
    let saturation = if max > 0.0 { (max - min) / max } else { 0.0 };
    if saturation < 0.18 {
        // Greys: the white of a blank sticker, lit or shaded, is far lighter than the bodies.
        return if max > 110.0 {
            ColourClass::Blank
        } else {
            ColourClass::Other
        };
    }
    if max < 80.0 {
        return ColourClass::Other;
    }
    let hue = if max == r {
        60.0 * ((g - b) / (max - min)).rem_euclid(6.0)
    } else if max == g {
        60.0 * ((b - r) / (max - min) + 2.0)
    } else {
        60.0 * ((r - g) / (max - min) + 4.0)
    };
    match hue {
        // Red: the O's ring and its paler disc.
        h if !(15.0..345.0).contains(&h) && saturation > 0.3 => ColourClass::O,
        h if (35.0..70.0).contains(&h) && saturation > 0.5 => ColourClass::Spent,
        h if (100.0..170.0).contains(&h) && saturation > 0.5 => ColourClass::Win,
        h if (185.0..213.0).contains(&h) && saturation > 0.4 => ColourClass::SkyBlue,
        h if (213.0..250.0).contains(&h) && saturation > 0.6 => ColourClass::X,
        _ => ColourClass::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_palette_classifies_as_itself_in_light_and_shade() {
        for (colour, class) in [
            (BLANK, ColourClass::Blank),
            (SPENT, ColourClass::Spent),
            (X_MARK, ColourClass::X),
            (O_MARK, ColourClass::O),
            (SIDE1_BODY, ColourClass::SkyBlue),
            (WIN, ColourClass::Win),
            (BODY, ColourClass::Other),
            (BACKGROUND, ColourClass::Other),
        ] {
            for light in [0.5, 0.75, 1.0] {
                let shaded = colour.linear().map(|c| {
                    let c = c * light;
                    let e = if c <= 0.003_130_8 {
                        c * 12.92
                    } else {
                        1.055 * c.powf(1.0 / 2.4) - 0.055
                    };
                    (e * 255.0).round() as u8
                });
                assert_eq!(classify(shaded), class, "{colour:?} at {light}");
            }
        }
    }
}
