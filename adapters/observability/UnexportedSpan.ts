import { Context, Option, type Tracer } from "effect"

/**
 * A span that is never exported: what a request that is not traced runs under, so that the router and
 * authentication still write the attributes the request log reads back (the matched route, the account, the request
 * id, by which the logger finds it), and what a sampler gives a trace it leaves out (`sampled` false, which its
 * children follow). Only the attributes differ between two of them.
 */
export class UnexportedSpan implements Tracer.Span {
  readonly attributes = new Map<string, unknown>()
  attribute(key: string, value: unknown) {
    this.attributes.set(key, value)
  }
  end() {}
  event() {}
  addLinks() {}
  declare readonly _tag: "Span"
  declare readonly name: string
  declare readonly spanId: string
  declare readonly traceId: string
  declare readonly parent: Option.Option<Tracer.AnySpan>
  declare readonly context: Context.Context<never>
  declare readonly status: Tracer.SpanStatus
  declare readonly links: ReadonlyArray<Tracer.SpanLink>
  declare readonly sampled: boolean
  declare readonly kind: Tracer.SpanKind
}
Object.assign(UnexportedSpan.prototype, {
  _tag: "Span",
  name: "unexported",
  spanId: "unexported",
  traceId: "unexported",
  parent: Option.none(),
  context: Context.empty(),
  status: { _tag: "Started", startTime: 0n },
  links: [],
  sampled: false,
  kind: "server"
})
