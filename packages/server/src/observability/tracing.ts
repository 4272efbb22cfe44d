/**
 * OpenTelemetry traces with Effect's own OTLP exporter (`effect/observability`, over `fetch`):
 * off unless `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or `OTEL_EXPORTER_OTLP_ENDPOINT` is set. Each
 * request gets a server span named `METHOD /route/{template}` (a W3C `traceparent` from the
 * client is its parent), and the Effect spans of the domain services it runs through
 * (`Credentials.authenticate`, `Projects.create`, the SQL statements…) are its children. Spans
 * are exported in batches (`OTEL_BSP_SCHEDULE_DELAY`, default 5 s) and flushed on shutdown.
 *
 * The standard variables honoured: `OTEL_SDK_DISABLED`, `OTEL_TRACES_EXPORTER` (`otlp`, the
 * default, or `none`), the two endpoints, `OTEL_EXPORTER_OTLP_[TRACES_]HEADERS`,
 * `OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL` (`http/protobuf`, the default, or `http/json`),
 * `OTEL_SERVICE_NAME` (default `canopy`), `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_BSP_SCHEDULE_DELAY`.
 */
import { Context, Duration, Effect, Exit, Layer, ManagedRuntime, Option, Tracer } from "effect"
import { FetchHttpClient } from "effect/http"
import { OtlpSerialization, OtlpTracer } from "effect/observability"
import type { ApiRequest } from "../http/types.ts"

/** Where and how spans are exported. */
export interface TracingOptions {
  /** The OTLP/HTTP traces URL (`http://collector:4318/v1/traces`). */
  readonly url: string
  readonly headers?: Readonly<Record<string, string>> | undefined
  readonly protocol?: "http/protobuf" | "http/json" | undefined
  /** `service.name`; default `canopy`. Other resource attributes come from `OTEL_RESOURCE_ATTRIBUTES`. */
  readonly serviceName?: string | undefined
  readonly serviceVersion?: string | undefined
  /** How often batches are sent (ms); default 5,000. */
  readonly exportIntervalMs?: number | undefined
}

type Env = Readonly<Record<string, string | undefined>>

/** `k1=v1,k2=v2`, percent-decoded (the OTLP headers and resource attributes format). */
const keyValues = (text: string | undefined): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const part of (text ?? "").split(",")) {
    const at = part.indexOf("=")
    if (at <= 0) continue
    try {
      out[decodeURIComponent(part.slice(0, at).trim())] = decodeURIComponent(part.slice(at + 1).trim())
    } catch {
      // a malformed entry is skipped, as the OpenTelemetry SDKs do
    }
  }
  return out
}

/**
 * The tracing configuration the standard `OTEL_*` variables describe, or undefined when tracing
 * is off (no endpoint, `OTEL_SDK_DISABLED=true`, `OTEL_TRACES_EXPORTER=none`). Throws, naming the
 * variable, on an endpoint that is not a URL or a protocol Canopy cannot speak (`grpc`).
 */
export const tracingFromEnv = (env: Env = process.env): TracingOptions | undefined => {
  if ((env.OTEL_SDK_DISABLED ?? "").trim().toLowerCase() === "true") return undefined
  const exporters = (env.OTEL_TRACES_EXPORTER ?? "otlp").split(",").map((s) => s.trim().toLowerCase())
  if (!exporters.includes("otlp")) return undefined
  const specific = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim()
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim()
  const variable = specific ? "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT" : "OTEL_EXPORTER_OTLP_ENDPOINT"
  const url = specific || (base ? `${base.replace(/\/+$/, "")}/v1/traces` : undefined)
  if (!url) return undefined
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol))
    throw new Error(`${variable} must be an http(s) URL, got ${JSON.stringify(specific || base)}`)
  const protocol = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL?.trim() || env.OTEL_EXPORTER_OTLP_PROTOCOL?.trim() || "http/protobuf"
  if (protocol !== "http/protobuf" && protocol !== "http/json") {
    throw new Error(`OTEL_EXPORTER_OTLP_PROTOCOL ${JSON.stringify(protocol)} is not supported: use http/protobuf or http/json`)
  }
  const delay = Number(env.OTEL_BSP_SCHEDULE_DELAY)
  return {
    url,
    headers: keyValues(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS ?? env.OTEL_EXPORTER_OTLP_HEADERS),
    protocol,
    serviceName: env.OTEL_SERVICE_NAME?.trim() || keyValues(env.OTEL_RESOURCE_ATTRIBUTES)["service.name"] || "canopy",
    ...(Number.isFinite(delay) && delay > 0 ? { exportIntervalMs: delay } : {})
  }
}

/** The tracing of one request: its server span, made when first needed. */
export interface RequestTrace {
  /** Runs an effect of the request (its pipeline) as a child of the request's span. */
  readonly wrap: <A, E, R>(route: string, effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** Ends the request's span with its route template and status. */
  readonly end: (route: string, status: number, requestId: string) => void
}

/** Running tracing. */
export interface Tracing {
  /** Starts tracing a request (give it to the pipeline as `trace`). */
  readonly request: (req: ApiRequest) => RequestTrace
  /** Runs a background effect (a webhook delivery) under the exporting tracer, as a trace of its own. */
  readonly background: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** Exports what is buffered and stops (on shutdown). */
  readonly close: () => Promise<void>
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/

/** The parent a W3C `traceparent` header names, if it is well formed. */
const parseTraceparent = (header: string | undefined): Tracer.ExternalSpan | undefined => {
  const m = header === undefined ? null : TRACEPARENT.exec(header.trim().toLowerCase())
  if (!m || /^0+$/.test(m[1]!) || /^0+$/.test(m[2]!)) return undefined
  return Tracer.externalSpan({ traceId: m[1]!, spanId: m[2]!, sampled: (Number.parseInt(m[3]!, 16) & 1) === 1 })
}

/** Wall-clock time in nanoseconds, as span times are. */
const nowNanos = () => BigInt(Math.round((performance.timeOrigin + performance.now()) * 1_000)) * 1_000n

/** Starts the exporter; spans are sent from now on. */
export const startTracing = async (options: TracingOptions): Promise<Tracing> => {
  const runtime = ManagedRuntime.make(OtlpTracer.layer({
    url: options.url,
    headers: options.headers,
    resource: { serviceName: options.serviceName ?? "canopy", serviceVersion: options.serviceVersion },
    exportInterval: Duration.millis(options.exportIntervalMs ?? 5_000),
    shutdownTimeout: Duration.seconds(3)
  }).pipe(
    Layer.provide(options.protocol === "http/json" ? OtlpSerialization.layerJson : OtlpSerialization.layerProtobuf),
    Layer.provide(FetchHttpClient.layer)
  ))
  const tracer = await runtime.runPromise(Effect.tracer)

  const request = (req: ApiRequest): RequestTrace => {
    const startTime = nowNanos()
    const parent = parseTraceparent(req.headers.traceparent)
    let span: Tracer.Span | undefined
    const open = (route: string) =>
      span ??= tracer.span({
        name: `${req.method} ${route}`,
        parent: parent ? Option.some(parent) : Option.none(),
        annotations: Context.empty(),
        links: [],
        startTime,
        kind: "server",
        root: parent === undefined,
        sampled: parent?.sampled ?? true
      })
    return {
      wrap: (route, effect) => Effect.withTracer(Effect.withParentSpan(effect, open(route)), tracer),
      end: (route, status, requestId) => {
        const s = open(route)
        s.attribute("http.request.method", req.method)
        s.attribute("http.route", route)
        s.attribute("url.path", req.path)
        s.attribute("http.response.status_code", status)
        s.attribute("canopy.request_id", requestId)
        // Server spans: a 5xx is an error; a 4xx is the client's (status left unset, per the conventions).
        s.end(nowNanos(), status >= 500 ? Exit.fail(new Error(`HTTP ${status}`)) : Exit.void)
      }
    }
  }

  let closing: Promise<void> | undefined
  return {
    request,
    background: (effect) => Effect.withTracer(effect, tracer),
    close: () => closing ??= runtime.dispose()
  }
}
