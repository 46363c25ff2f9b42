import { context, propagation, type Span, SpanStatusCode, trace, type Attributes } from '@opentelemetry/api';
import { suppressTracing, W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider, type SpanProcessor } from '@opentelemetry/sdk-trace-node';

/**
 * OpenTelemetry traces of turns and imports (`traceparent` travels in job data). Off unless the
 * standard `OTEL_EXPORTER_OTLP_*` variables are set; then read by the exporter itself.
 */
const tracer = trace.getTracer('corpus-chat');

/**
 * Starts exporting this process's spans when the environment asks for it (see above), or through
 * `processor` (tests). Returns the provider's shutdown (flushes what is buffered), or null when off.
 */
export function startTracing(
  serviceName: string,
  processor?: SpanProcessor,
  env: NodeJS.ProcessEnv = process.env,
): (() => Promise<void>) | null {
  const configured = env['OTEL_EXPORTER_OTLP_ENDPOINT'] || env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'];
  if (!processor && (!configured || env['OTEL_SDK_DISABLED'] === 'true')) return null;
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': env['OTEL_SERVICE_NAME'] || serviceName }),
    spanProcessors: [processor ?? new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  provider.register({ propagator: new W3CTraceContextPropagator() });
  return () => provider.shutdown();
}

/**
 * `startTracing` for a process's `main`: spans still buffered are flushed when the process is about
 * to exit on its own (after a graceful shutdown).
 */
export function traceProcess(serviceName: string): void {
  const stop = startTracing(serviceName);
  if (stop) process.once('beforeExit', () => void stop());
}

/** Runs `fn` recording no span (a start-up warm-up is no operator's request). */
export function untraced<T>(fn: () => Promise<T>): Promise<T> {
  return context.with(suppressTracing(context.active()), fn);
}

/** Runs `fn` in a new span `name` (a child of the active one), recording a thrown error on it. */
export function inSpan<T>(name: string, attributes: Attributes, fn: (span: Span) => Promise<T>): Promise<T> {
  return tracer.startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await fn(span);
    } catch (e) {
      span.recordException(e as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (e as Error).message });
      throw e;
    } finally {
      span.end();
    }
  });
}

/** The active trace as job data: `{ traceparent }` (W3C Trace Context), or nothing when not tracing. */
export function traceCarrier(): { traceparent?: string } {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier['traceparent'] ? { traceparent: carrier['traceparent'] } : {};
}

/** Runs `fn` inside the trace a job's `traceparent` names (a new trace when absent). */
export function withTraceParent<T>(traceparent: string | undefined, fn: () => Promise<T>): Promise<T> {
  const parent = traceparent ? propagation.extract(context.active(), { traceparent }) : context.active();
  return context.with(parent, fn);
}
