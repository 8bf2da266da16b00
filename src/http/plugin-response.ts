/** Set on the plugin's own responses: a symbol property, cheaper per request than a WeakSet entry (an ephemeron for the GC). */
const SERVED = Symbol('express-agent-discovery.pluginResponse');

/** Marks a response as one of the plugin's own (it never gets the site-level links added). */
export function markPluginResponse(res: object): void {
  (res as { [SERVED]?: true })[SERVED] = true;
}

export function isPluginResponse(res: object): boolean {
  return (res as { [SERVED]?: true })[SERVED] === true;
}
