// A Prometheus histogram without labels that takes one value for several observations at once:
// the ledger's appends of one agent read are timed together (./metrics.ts), and prom-client's
// Histogram made a closure, a labels object and a hash for each of them (0.15-0.3 µs and ~200
// bytes per relayed update). Registered in prom-client's registry and shown as its Histogram
// shows itself: cumulative `_bucket{le}` lines ending with `+Inf`, then `_sum` and `_count`.
import type { Metric, Registry } from "prom-client";

export class CountedHistogram {
  readonly type = "histogram";
  readonly aggregator = "sum";
  /** Observations per bucket (not cumulative); the last is past every bound (+Inf). */
  private readonly counts: number[];
  private sum = 0;

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly bounds: readonly number[],
    registers: readonly Registry[],
  ) {
    this.counts = new Array<number>(bounds.length + 1).fill(0);
    for (const r of registers) r.registerMetric(this as unknown as Metric);
  }

  /** `count` observations of `value`. */
  observe(value: number, count = 1): void {
    let i = 0;
    while (i < this.bounds.length && value > this.bounds[i]!) i += 1;
    this.counts[i]! += count;
    this.sum += value * count;
  }

  reset(): void {
    this.counts.fill(0);
    this.sum = 0;
  }

  /** What prom-client's registry reads at a scrape. */
  get() {
    const bucket = `${this.name}_bucket`;
    let seen = 0;
    const values = this.counts.map((n, i) => {
      seen += n;
      const le = i < this.bounds.length ? this.bounds[i]! : "+Inf";
      return { labels: { le }, value: seen, metricName: bucket };
    });
    return Promise.resolve({
      name: this.name,
      help: this.help,
      type: this.type,
      aggregator: this.aggregator,
      values: [
        ...values,
        { labels: {}, value: this.sum, metricName: `${this.name}_sum` },
        { labels: {}, value: seen, metricName: `${this.name}_count` },
      ],
    });
  }
}
