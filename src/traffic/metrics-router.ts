import express, { type Request, type Response, type Router } from 'express';
import type { TrafficRecorder } from './traffic-recorder.js';

/**
 * The Prometheus metrics of agent traffic, for the host to mount where it wants (never on the public
 * site by default): `app.use('/internal/metrics', agent.metricsRouter)`. Without the `traffic`
 * option it answers 404, saying why.
 */
export function createMetricsRouter(recorder: TrafficRecorder | undefined): Router {
  const router = express.Router();
  router.get('/', async function agentTrafficMetrics(_req: Request, res: Response) {
    res.setHeader('Cache-Control', 'no-store');
    if (!recorder) return void res.status(404).type('text/plain').send('Agent traffic is not counted: the traffic option is off.\n');
    res.type(recorder.metrics.registry.contentType).send(await recorder.metrics.registry.metrics());
  });
  return router;
}
