// Numbers as people read them, for the web page and the CLI: money with few digits (never
// "0.0009900000000000002 USD"), token counts grouped or shortened.

// A cost: two decimals from one cent up, else two significant digits ("$0.00099").
export function formatCost(amount: number, currency = "USD"): string {
  const digits =
    Math.abs(amount) >= 0.01 || amount === 0
      ? { minimumFractionDigits: 2, maximumFractionDigits: 2 }
      : { maximumSignificantDigits: 2 };
  try {
    return new Intl.NumberFormat("en-US", {
      style: "currency",
      currency,
      ...digits,
    }).format(amount);
  } catch {
    // Not an ISO 4217 code: the number, then the unit as given.
    const n = new Intl.NumberFormat("en-US", digits).format(amount);
    return `${n} ${currency}`.trim();
  }
}

// A count with thousands grouped (12,345), or shortened past a million (1.2M).
export function formatCount(n: number): string {
  if (Math.abs(n) >= 1_000_000)
    return `${(n / 1_000_000).toFixed(1).replace(/\.0$/, "")}M`;
  return new Intl.NumberFormat("en-US").format(n);
}
