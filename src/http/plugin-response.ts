const served = new WeakSet<object>();

/** Marks a response as one of the plugin's own (it never gets the site-level links added). */
export function markPluginResponse(res: object): void {
  served.add(res);
}

export function isPluginResponse(res: object): boolean {
  return served.has(res);
}
