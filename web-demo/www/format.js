// Display formatting of the estimator's decimal strings, without floating point: the exact
// strings stay in the page (data-exact, title) and only their display is rounded.

/** "1234567" -> "1,234,567" (an optional leading minus is kept). */
export function group(digits) {
  const negative = digits.startsWith("-");
  const body = negative ? digits.slice(1) : digits;
  const grouped = body.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return negative ? `-${grouped}` : grouped;
}

/** A decimal string as whole units, grouped: "15000000" -> "15,000,000"; "582.75" -> "582.75". */
export function tokens(text) {
  const [whole, fraction] = text.split(".");
  return fraction ? `${group(whole)}.${fraction}` : group(whole);
}

/**
 * A money string with six decimals ("1234.567890") in dollars and cents, rounded half away from
 * zero like the estimator: "$1,234.57". Amounts under a cent but above zero show as "<$0.01".
 */
export function dollars(text) {
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match) return text;
  const [, sign, whole, fraction = ""] = match;
  const micros = BigInt(whole + fraction.padEnd(6, "0").slice(0, 6));
  if (micros > 0n && micros < 5000n) return "<$0.01";
  const cents = (micros + 5000n) / 10000n;
  const units = (cents / 100n).toString();
  const rest = (cents % 100n).toString().padStart(2, "0");
  return `${sign}$${group(units)}.${rest}`;
}

/** A price per 1M tokens as sent by the API ("0.15") -> "$0.15". */
export function price(text) {
  return text == null ? "–" : `$${text}`;
}

/** A rate 0..1 as a percentage for labels: 0.35 -> "35%", 0.125 -> "12.5%". */
export function percent(rate) {
  return `${Math.round(rate * 1000) / 10}%`;
}

/**
 * `a / b` for non-negative decimal strings (`b` above zero), rounded to `places` decimals half
 * away from zero like PostgreSQL's round(numeric, places), trailing zeros dropped:
 * ("2", "3", 6) -> "0.666667". BigInt throughout, no floats.
 */
export function divide(a, b, places) {
  const parts = (text) => {
    const [whole, fraction = ""] = text.split(".");
    return { digits: BigInt(whole + fraction), scale: fraction.length };
  };
  const x = parts(a);
  const y = parts(b);
  const num = x.digits * 10n ** BigInt(places + y.scale);
  const den = y.digits * 10n ** BigInt(x.scale);
  let q = num / den;
  if (2n * (num % den) >= den) q += 1n;
  const text = q.toString().padStart(places + 1, "0");
  const whole = text.slice(0, text.length - places);
  const fraction = text.slice(text.length - places).replace(/0+$/, "");
  return fraction ? `${whole}.${fraction}` : whole;
}
