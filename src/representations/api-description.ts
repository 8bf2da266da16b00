/** What the API is called and how it is described: the root document and OpenAPI's `info` say the same. */
export function describeApi(site: { title: string; description?: string | undefined }): { title: string; description: string } {
  return {
    title: `${site.title} content API`,
    description:
      (site.description ? `${site.description}\n\n` : '') +
      'Read-only, anonymous access to the public content of the site. No API key. Every read is evaluated as an anonymous visitor.',
  };
}
