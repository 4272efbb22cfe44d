/** The one function of `parse-prometheus-text-format` (the package ships no types). */
declare module "parse-prometheus-text-format" {
  /** Metric families of a Prometheus text exposition. */
  export default function parsePrometheusTextFormat(text: string): ReadonlyArray<unknown>
}
