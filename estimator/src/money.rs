//! Rendering of money and token amounts as decimal strings.
//!
//! Costs are computed exactly and rounded only when rendered, by one rule: [`MONEY_SCALE`] (6)
//! decimal places, half away from zero. That is the rule of PostgreSQL's `round(numeric, 6)`, so
//! an amount recomputed in SQL renders the same; and since `rust_decimal` is plain integer
//! arithmetic, native code, the REST API and WASM give byte-identical strings.

use rust_decimal::{Decimal, RoundingStrategy};

/// Decimal places of every rendered money amount (USD).
pub const MONEY_SCALE: u32 = 6;

/// How money is rounded to [`MONEY_SCALE`]: a midpoint goes away from zero (half-up for the
/// non-negative amounts the estimator produces).
pub const MONEY_ROUNDING: RoundingStrategy = RoundingStrategy::MidpointAwayFromZero;

/// Rounds a money amount to [`MONEY_SCALE`] places with [`MONEY_ROUNDING`].
///
/// The result may carry fewer than six places (`1.5` stays `1.5`); [`format_money`] pads.
pub fn round_money(amount: Decimal) -> Decimal {
    let rounded = amount.round_dp_with_strategy(MONEY_SCALE, MONEY_ROUNDING);
    // A tiny negative amount rounds to negative zero, which would print as "-0".
    if rounded.is_zero() {
        Decimal::ZERO
    } else {
        rounded
    }
}

/// Renders a money amount with exactly [`MONEY_SCALE`] decimal places, e.g. `"12.500000"`.
///
/// ```
/// use estimator::format_money;
/// use rust_decimal::Decimal;
///
/// assert_eq!(format_money(Decimal::new(125, 1)), "12.500000");
/// assert_eq!(format_money(Decimal::new(12_345_675, 12)), "0.000012"); // 0.000012345675
/// assert_eq!(format_money(Decimal::new(5, 7)), "0.000001"); // midpoint: away from zero
/// ```
pub fn format_money(amount: Decimal) -> String {
    let mut text = String::with_capacity(24);
    write_money(&mut text, amount);
    text
}

/// Appends `amount` rendered as [`format_money`] does to `out`, without a `String` of its own:
/// for callers that render many amounts into one buffer.
///
/// ```
/// use estimator::write_money;
/// use rust_decimal::Decimal;
///
/// let mut out = String::from("total ");
/// write_money(&mut out, Decimal::new(125, 1));
/// assert_eq!(out, "total 12.500000");
/// ```
pub fn write_money(out: &mut String, amount: Decimal) {
    use std::fmt::Write;

    let rounded = round_money(amount);
    // In millionths: the mantissa scaled up to exactly MONEY_SCALE places (rounding left at
    // most that many), written as an integer with the point placed before its last
    // MONEY_SCALE digits: much quicker than `Decimal`'s own formatting and padding.
    let micros = rounded.mantissa() * 10i128.pow(MONEY_SCALE - rounded.scale());
    if micros < 0 {
        out.push('-');
    }
    let micros = micros.unsigned_abs();
    match u64::try_from(micros) {
        // Amounts under about 18 trillion (all but absurd ones) fit in a u64: digits written by
        // hand, which costs a fraction of u128 division and `fmt` padding (in WASM above all,
        // where u128 division is a library call); the calculator's chart renders thousands of
        // amounts a draw.
        Ok(micros) => push_micros(out, micros),
        Err(_) => {
            let unit = 10u128.pow(MONEY_SCALE);
            let width = MONEY_SCALE as usize;
            // Writing into a String cannot fail.
            let _ = write!(out, "{}.{:0width$}", micros / unit, micros % unit);
        }
    }
}

/// Appends `micros` millionths as a decimal with exactly [`MONEY_SCALE`] places.
fn push_micros(out: &mut String, mut micros: u64) {
    // 20 digits of u64::MAX and the point.
    let mut buf = [0u8; 21];
    let mut start = buf.len();
    let mut written = 0;
    // At least one digit before the point.
    while micros > 0 || written <= MONEY_SCALE {
        if written == MONEY_SCALE {
            start -= 1;
            buf[start] = b'.';
        }
        start -= 1;
        buf[start] = b'0' + (micros % 10) as u8;
        micros /= 10;
        written += 1;
    }
    out.extend(buf[start..].iter().map(|&b| char::from(b)));
}

/// Renders an exact amount (token volumes, prices) without trailing zeros, e.g. `"1500"`,
/// `"0.3"`. Plain notation, never an exponent.
pub fn format_exact(value: Decimal) -> String {
    value.normalize().to_string()
}

/// Serde helpers: money out as fixed-scale strings, decimals in from strings or JSON numbers.
pub(crate) mod serde_helpers {
    use std::fmt;
    use std::str::FromStr;

    use rust_decimal::Decimal;
    use serde::de::{self, MapAccess, Unexpected, Visitor};
    use serde::{Deserializer, Serializer};

    /// The key under which serde_json hands over a number when its `arbitrary_precision`
    /// feature is on (for example switched on by another crate in the same build).
    const ARBITRARY_PRECISION_KEY: &str = "$serde_json::private::Number";

    pub(crate) fn serialize_money<S: Serializer>(value: &Decimal, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&super::format_money(*value))
    }

    pub(crate) fn serialize_exact<S: Serializer>(value: &Decimal, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&super::format_exact(*value))
    }

    /// What a null means for the field being read.
    #[derive(Clone, Copy)]
    enum OnNull {
        Reject,
        Zero,
    }

    /// Accepts a decimal string (`"0.25"`, `"1e-3"`) or a JSON number. A non-integer number
    /// arrives as f64 and is read through its shortest round-trip text, so `0.333` becomes
    /// exactly `0.333`, never `0.33300000000000001820765760385`.
    struct DecimalVisitor(OnNull);

    impl DecimalVisitor {
        fn parse<E: de::Error>(self, text: &str) -> Result<Decimal, E> {
            Decimal::from_str(text)
                .or_else(|_| Decimal::from_scientific(text))
                .map_err(|_| E::invalid_value(Unexpected::Str(text), &self))
        }
    }

    impl<'de> Visitor<'de> for DecimalVisitor {
        type Value = Decimal;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a decimal number or a decimal string")
        }

        fn visit_str<E: de::Error>(self, v: &str) -> Result<Decimal, E> {
            self.parse(v)
        }

        fn visit_u64<E: de::Error>(self, v: u64) -> Result<Decimal, E> {
            Ok(Decimal::from(v))
        }

        fn visit_i64<E: de::Error>(self, v: i64) -> Result<Decimal, E> {
            Ok(Decimal::from(v))
        }

        fn visit_f64<E: de::Error>(self, v: f64) -> Result<Decimal, E> {
            if !v.is_finite() {
                return Err(E::invalid_value(Unexpected::Float(v), &self));
            }
            // Rust prints the shortest text that reads back as the same f64, in plain notation.
            Decimal::from_str(&v.to_string())
                .map_err(|_| E::invalid_value(Unexpected::Float(v), &self))
        }

        fn visit_unit<E: de::Error>(self) -> Result<Decimal, E> {
            match self.0 {
                OnNull::Zero => Ok(Decimal::ZERO),
                OnNull::Reject => Err(E::invalid_type(Unexpected::Unit, &self)),
            }
        }

        fn visit_none<E: de::Error>(self) -> Result<Decimal, E> {
            self.visit_unit()
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Decimal, A::Error> {
            match map.next_key::<String>()? {
                Some(key) if key == ARBITRARY_PRECISION_KEY => {
                    let text: String = map.next_value()?;
                    self.parse(&text)
                }
                _ => Err(de::Error::invalid_type(Unexpected::Map, &self)),
            }
        }
    }

    /// A required decimal: string or number.
    pub(crate) fn decimal<'de, D: Deserializer<'de>>(d: D) -> Result<Decimal, D::Error> {
        d.deserialize_any(DecimalVisitor(OnNull::Reject))
    }

    /// A decimal whose null means zero (the rates, which default to 0).
    pub(crate) fn decimal_or_zero<'de, D: Deserializer<'de>>(d: D) -> Result<Decimal, D::Error> {
        d.deserialize_any(DecimalVisitor(OnNull::Zero))
    }

    /// An optional decimal: null or absent means `None`.
    pub(crate) fn optional_decimal<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<Decimal>, D::Error> {
        struct OptionVisitor;

        impl<'de> Visitor<'de> for OptionVisitor {
            type Value = Option<Decimal>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("null, a decimal number or a decimal string")
            }

            fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(None)
            }

            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(None)
            }

            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
                decimal(d).map(Some)
            }
        }

        d.deserialize_option(OptionVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dec(text: &str) -> Decimal {
        text.parse().expect("valid decimal")
    }

    #[test]
    fn money_always_has_six_places() {
        assert_eq!(format_money(Decimal::ZERO), "0.000000");
        assert_eq!(format_money(dec("12")), "12.000000");
        assert_eq!(format_money(dec("0.1")), "0.100000");
        assert_eq!(
            format_money(dec("1234567890123.4567891")),
            "1234567890123.456789"
        );
    }

    #[test]
    fn money_midpoints_round_away_from_zero() {
        assert_eq!(format_money(dec("0.0000005")), "0.000001");
        assert_eq!(format_money(dec("0.0000015")), "0.000002");
        assert_eq!(format_money(dec("0.0000025")), "0.000003");
        assert_eq!(format_money(dec("0.00000049999")), "0.000000");
    }

    #[test]
    fn money_keeps_the_sign_and_any_magnitude() {
        assert_eq!(format_money(dec("-1.5")), "-1.500000");
        assert_eq!(format_money(dec("-0.0000005")), "-0.000001");
        assert_eq!(
            format_money(Decimal::MAX),
            "79228162514264337593543950335.000000"
        );
        assert_eq!(
            format_money(Decimal::MIN),
            "-79228162514264337593543950335.000000"
        );
        // Either side of the largest number of millionths a u64 holds.
        assert_eq!(
            format_money(dec("18446744073709.551615")),
            "18446744073709.551615"
        );
        assert_eq!(
            format_money(dec("18446744073709.551616")),
            "18446744073709.551616"
        );
        assert_eq!(
            format_money(dec("-18446744073709.5516155")),
            "-18446744073709.551616"
        );
    }

    #[test]
    fn money_never_renders_negative_zero() {
        assert_eq!(format_money(dec("-0.0000001")), "0.000000");
        assert_eq!(format_money(dec("-0")), "0.000000");
    }

    #[test]
    fn exact_amounts_drop_trailing_zeros() {
        assert_eq!(format_exact(dec("1500.000")), "1500");
        assert_eq!(format_exact(dec("0.30")), "0.3");
        assert_eq!(format_exact(dec("1000000000000000")), "1000000000000000");
        assert_eq!(format_exact(dec("-0.0")), "0");
    }
}
