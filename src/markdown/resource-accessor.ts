import type { ComposableResource } from '../content/composable-resources.js';
import { parseResourceRef as lookupKey } from '../content/resource-ref.js';

/** What `rsc(idOrName)` gives a template. Everything is empty for a resource an anonymous visitor cannot see. */
export interface TemplateResource {
  readonly exists: boolean;
  readonly id: number | undefined;
  readonly name: string | null;
  readonly title: string;
  readonly summary: string;
  readonly language: string;
  readonly category: string | null;
  readonly page_url: string;
  readonly uri: string;
  /** A custom field (`props`) of the resource, as stored; `undefined` when absent. */
  prop(key: string): unknown;
}

const ABSENT: TemplateResource = Object.freeze({
  exists: false,
  id: undefined,
  name: null,
  title: '',
  summary: '',
  language: '',
  category: null,
  page_url: '',
  uri: '',
  prop: () => undefined,
});

/** At most this many resources are looked up per render pass; later ones read as absent. */
const MAX_LOOKUPS_PER_PASS = 100;

/** An id or a unique name, as a lookup key; `undefined` for anything else. */
export { lookupKey };

/**
 * The custom-field accessor templates call as `rsc(idOrName)`. Nunjucks renders synchronously, so the
 * accessor answers from what is already loaded (the resource itself and its page references) and
 * records every other key asked for; the composer then loads those, anonymous-visible only, in one
 * query and renders again (at most a few passes). A key that is not visible is remembered as absent,
 * so a private resource reads exactly like a missing one.
 */
export class ResourceAccessor {
  readonly #known = new Map<number | string, TemplateResource>();
  readonly #misses = new Set<number | string>();

  constructor(private readonly present: (resource: ComposableResource) => Omit<TemplateResource, 'prop'>) {}

  /** Makes loaded (visible) resources readable, and every other key in `asked` absent. */
  learn(resources: readonly ComposableResource[], asked: readonly (number | string)[] = []): void {
    for (const r of resources) {
      const props = r.props;
      const view: TemplateResource = Object.freeze({
        ...this.present(r),
        prop: (key: string) => (typeof key === 'string' && Object.hasOwn(props, key) ? props[key] : undefined),
      });
      this.#known.set(r.id, view);
      if (r.name) this.#known.set(r.name, view);
    }
    for (const key of asked) if (!this.#known.has(key)) this.#known.set(key, ABSENT);
  }

  /** The function templates call. */
  readonly lookup = (idOrName: unknown): TemplateResource => {
    const key = lookupKey(idOrName);
    if (key === undefined) return ABSENT;
    const known = this.#known.get(key);
    if (known) return known;
    if (this.#misses.size < MAX_LOOKUPS_PER_PASS) this.#misses.add(key);
    return ABSENT;
  };

  /** The keys asked for but not yet known, cleared for the next pass. */
  takeMisses(): (number | string)[] {
    const misses = [...this.#misses];
    this.#misses.clear();
    return misses;
  }
}
