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

    if let Some((negative, micros)) = small_micros(amount) {
        if negative {
            out.push('-');
        }
        push_micros(out, micros);
        return;
    }
    let rounded = round_money(amount);
    // In millionths: the mantissa scaled up to exactly MONEY_SCALE places (rounding left at
    // most that many), written as an integer with the point placed before its last
    // MONEY_SCALE digits.
    let micros = rounded.mantissa() * 10i128.pow(MONEY_SCALE - rounded.scale());
    if micros < 0 {
        out.push('-');
    }
    let micros = micros.unsigned_abs();
    let unit = 10u128.pow(MONEY_SCALE);
    let width = MONEY_SCALE as usize;
    // Writing into a String cannot fail.
    let _ = write!(out, "{}.{:0width$}", micros / unit, micros % unit);
}

/// `amount` rounded by the money rule ([`MONEY_SCALE`] places, [`MONEY_ROUNDING`]) as a sign
/// and a count of millionths, when its mantissa and the result fit in a `u64`: every amount
/// of a real bill (up to about 18 trillion). `None` for the rest, which [`round_money`] rounds.
///
/// The same rule as [`round_money`] in 64-bit integers: `rust_decimal` rounds in 96-bit
/// arithmetic, and 128-bit multiplication and division are library calls in WASM, where the
/// calculator's chart renders thousands of amounts a draw; the test
/// `small_micros_round_as_round_money_does` holds the two to the same answers.
fn small_micros(amount: Decimal) -> Option<(bool, u64)> {
    let mantissa = amount.mantissa();
    let magnitude = u64::try_from(mantissa.unsigned_abs()).ok()?;
    let scale = amount.scale();
    let micros = if scale <= MONEY_SCALE {
        magnitude.checked_mul(10u64.pow(MONEY_SCALE - scale))?
    } else {
        let unit = 10u64.checked_pow(scale - MONEY_SCALE)?;
        let (whole, rest) = (magnitude / unit, magnitude % unit);
        // Half away from zero: up when the rest is at least half a unit.
        if rest >= unit - rest {
            whole + 1
        } else {
            whole
        }
    };
    // A tiny negative amount rounds to zero, never to "-0".
    Some((mantissa < 0 && micros > 0, micros))
}

/// Appends `micros` millionths as a decimal with exactly [`MONEY_SCALE`] places.
fn push_micros(out: &mut String, micros: u64) {
    const UNIT: u64 = 10u64.pow(MONEY_SCALE);
    // 20 digits of u64::MAX and the point, written from the right.
    let mut buf = [0u8; 21];
    let end = buf.len();
    let mut start = push_digits(&mut buf, end, (micros % UNIT) as u32, MONEY_SCALE as usize);
    start -= 1;
    buf[start] = b'.';
    start = push_u64(&mut buf, start, micros / UNIT);
    out.extend(buf[start..].iter().map(|&b| char::from(b)));
}

/// Writes the decimal digits of `n` (at least one) into `buf` ending before `end`; returns
/// where they start. The digit loops run on u32 pieces below 10^8: in WASM, a 64-bit division
/// by a constant becomes a 128-bit multiplication, a library call, and the chart renders
/// thousands of amounts a draw.
fn push_u64(buf: &mut [u8], end: usize, n: u64) -> usize {
    const PIECE: u64 = 100_000_000;
    let (rest, low) = (n / PIECE, (n % PIECE) as u32);
    if rest == 0 {
        return push_digits(buf, end, low, 1);
    }
    let start = push_digits(buf, end, low, 8);
    let (high, middle) = (rest / PIECE, (rest % PIECE) as u32);
    if high == 0 {
        return push_digits(buf, start, middle, 1);
    }
    let start = push_digits(buf, start, middle, 8);
    // Below 2^64 / 10^16, so a u32.
    push_digits(buf, start, high as u32, 1)
}

/// Writes the decimal digits of `n`, zero-padded to `width`, into `buf` ending before `end`;
/// returns where they start.
fn push_digits(buf: &mut [u8], end: usize, mut n: u32, width: usize) -> usize {
    let mut start = end;
    while n > 0 || end - start < width {
        start -= 1;
        buf[start] = b'0' + (n % 10) as u8;
        n /= 10;
    }
    start
}

/// Renders an exact amount (token volumes, prices) without trailing zeros, e.g. `"1500"`,
/// `"0.3"`. Plain notation, never an exponent.
pub fn format_exact(value: Decimal) -> String {
    let mut text = String::with_capacity(24);
    write_exact(&mut text, value);
    text
}

/// Appends `value` rendered as [`format_exact`] does to `out`. An estimate's answer renders
/// a few hundred of these; `rust_decimal`'s own rendering (`Display`, kept for a mantissa
/// beyond `u64`) was a tenth of POST /estimate's time in profiles.
///
/// ```
/// use estimator::write_exact;
/// use rust_decimal::Decimal;
///
/// let mut out = String::new();
/// write_exact(&mut out, Decimal::new(-1_500, 4));
/// assert_eq!(out, "-0.15");
/// ```
pub fn write_exact(out: &mut String, value: Decimal) {
    use std::fmt::Write;

    let value = value.normalize();
    let Ok(magnitude) = u64::try_from(value.mantissa().unsigned_abs()) else {
        // Writing into a String cannot fail.
        let _ = write!(out, "{value}");
        return;
    };
    if magnitude == 0 {
        out.push('0');
        return;
    }
    if value.is_sign_negative() {
        out.push('-');
    }
    // The digits of a u64, zero-padded on the left up to the 28 places a scale may have.
    let mut digits = [b'0'; 30];
    let end = digits.len();
    let scale = value.scale() as usize;
    let first = push_u64(&mut digits, end, magnitude).min(end - scale - 1);
    let point = end - scale;
    out.extend(digits[first..point].iter().map(|&b| char::from(b)));
    if scale > 0 {
        out.push('.');
        out.extend(digits[point..].iter().map(|&b| char::from(b)));
    }
}

/// Serde helpers: money out as fixed-scale strings, decimals in from strings or JSON numbers.
pub(crate) mod serde_helpers {
    use std::fmt;
    use std::str::FromStr;

    use rust_decimal::Decimal;
    use serde::Deserializer;
    use serde::de::{self, MapAccess, Unexpected, Visitor};

    /// The key under which serde_json hands over a number when its `arbitrary_precision`
    /// feature is on (for example switched on by another crate in the same build).
    const ARBITRARY_PRECISION_KEY: &str = "$serde_json::private::Number";

    /// `#[serde(with = "serde_helpers::money")]`: an amount of money, written with six places
    /// (`format_money`), read as any decimal.
    pub(crate) mod money {
        pub(crate) use super::decimal as deserialize;
        use rust_decimal::Decimal;
        use serde::Serializer;

        pub(crate) fn serialize<S: Serializer>(value: &Decimal, s: S) -> Result<S::Ok, S::Error> {
            s.serialize_str(&crate::money::format_money(*value))
        }
    }

    /// `#[serde(with = "serde_helpers::exact")]`: a price or a token count, written exactly
    /// without trailing zeros (`format_exact`), read as any decimal.
    pub(crate) mod exact {
        pub(crate) use super::decimal as deserialize;
        use rust_decimal::Decimal;
        use serde::Serializer;

        pub(crate) fn serialize<S: Serializer>(value: &Decimal, s: S) -> Result<S::Ok, S::Error> {
            s.serialize_str(&crate::money::format_exact(*value))
        }
    }

    /// `#[serde(serialize_with = "serde_helpers::optional_exact")]`: an optional share or
    /// price, written exactly (`format_exact`) or as null.
    pub(crate) fn optional_exact<S: serde::Serializer>(
        value: &Option<Decimal>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        match value {
            Some(v) => s.serialize_some(&crate::money::format_exact(*v)),
            None => s.serialize_none(),
        }
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
    fn small_micros_round_as_round_money_does() {
        // Every scale, mantissas around midpoints and the u64 edge, both signs: the integer
        // path answers exactly what `rust_decimal`'s rounding and formatting answer.
        let mut mantissas: Vec<i128> = vec![0, 1, 4, 5, 6, 9, 10, 15, 25, 49, 50, 51, 99, 100];
        for power in 0..=19u32 {
            let p = 10i128.pow(power);
            mantissas.extend([p - 1, p, p + 1, 5 * p - 1, 5 * p, 5 * p + 1, 15 * p, 25 * p]);
        }
        let edge = i128::from(u64::MAX);
        mantissas.extend([edge - 1, edge, edge + 1, edge / 7, 12_345_678_901_234_567]);
        for scale in 0..=28u32 {
            for &m in &mantissas {
                for m in [m, -m] {
                    let Ok(amount) = Decimal::try_from_i128_with_scale(m, scale) else {
                        continue;
                    };
                    let rounded = round_money(amount);
                    let expected = format!("{rounded:.6}");
                    if let Some((negative, micros)) = small_micros(amount) {
                        let mut text = String::new();
                        if negative {
                            text.push('-');
                        }
                        push_micros(&mut text, micros);
                        assert_eq!(text, expected, "{amount}");
                    }
                    assert_eq!(format_money(amount), expected, "{amount}");
                }
            }
        }
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

    #[test]
    fn exact_amounts_render_as_rust_decimal_does() {
        // Every scale and mantissa size: the u64 digits (with the point anywhere, leading
        // zeros up to 28 places) and the mantissas beyond u64 that fall back to Display.
        let mut mantissas = vec![0i128, 1, 7, 10, 99, 100_000_000, 1_234_567_890_123];
        mantissas.extend([
            u64::MAX as i128,
            u64::MAX as i128 + 1,
            79_228_162_514_264_337_593_543_950_335,
        ]);
        for m in mantissas {
            for negative in [false, true] {
                for scale in 0..=28 {
                    let m = if negative { -m } else { m };
                    let value = Decimal::from_i128_with_scale(m, scale);
                    assert_eq!(
                        format_exact(value),
                        value.normalize().to_string(),
                        "{m} e-{scale}"
                    );
                }
            }
        }
    }
}
