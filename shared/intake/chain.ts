/**
 * Every source's chain up to its body read, the one handler builder: the envelope (with a browser-facing
 * source's CORS), the route's own check, then the authentication and the body its handler module chose
 * for its declaration (steps.ts). Apart from handler.ts so that a function that goes on otherwise (an
 * API key endpoint's lead, shared/http/lead-handler.ts) does not carry the deliveries' intake.
 */
import { leadChain, step, type LeadChain, type LeadStep } from '../http/lead-chain.ts';
import type { LeadContext } from '../http/lambda.ts';
import { httpEnvelope, type CorsPolicy } from '../http/middleware/http-envelope.ts';
import type { LogSink } from '../log.ts';
import type { IntakeSource } from './types.ts';

/** After the route's own check: what the path named (calls' provider). */
export interface RouteChecked<Route> {
  route: Route;
}

/** A source's chain up to its body: its handler goes on with the one intake's deliveries (handler.ts), or an API key endpoint's lead. */
export const intakeChain = <Route, A, B>(
  source: Pick<IntakeSource<any, Route>, 'name' | 'route'>,
  log: LogSink,
  steps: { readonly authentication: LeadStep<LeadContext & RouteChecked<Route>, A>; readonly body: LeadStep<LeadContext & RouteChecked<Route> & A, B> },
  cors?: CorsPolicy,
): LeadChain<LeadContext & RouteChecked<Route> & A & B> =>
  leadChain(httpEnvelope({ endpoint: source.name, log, cors }))
    .use(routeCheck(source))
    .use(steps.authentication)
    .use(steps.body);

/**
 * What the route's path names, before the key is read. A source without a check has nothing there
 * (its Route is `undefined`, IntakeSource's default).
 */
const routeCheck = <Route>(source: Pick<IntakeSource<any, Route>, 'route'>): LeadStep<LeadContext, RouteChecked<Route>> =>
  step<LeadContext, RouteChecked<Route>>({
    before: ({ event, context }) => {
      context.route = source.route ? source.route(event) : (undefined as Route);
    },
  });

