// Stripe's own reference, read at test time: the `interface` declarations stripe-node generates
// from Stripe's OpenAPI spec (node_modules/stripe/esm/**/*.d.ts). A property without `?` is one
// the spec marks required — always sent, null or not — so these lists come from Stripe, not from
// us. `missingKeys` walks a rendered object against them, into nested objects, lists and arrays.
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';

export interface SdkProperty {
  readonly name: string;
  readonly optional: boolean;
  readonly type: string;
}

export interface SdkInterface {
  /** e.g. "resources/Invoices.d.ts#Invoice.AutomaticTax" */
  readonly key: string;
  readonly properties: readonly SdkProperty[];
}

interface FileScope {
  readonly file: string;
  /** Local name → "file#QualifiedName" for imported declarations. */
  readonly imports: Map<string, string>;
}

// stripe exports no ./package.json; its CommonJS entry sits in <package>/cjs/.
const esmRoot = join(dirname(dirname(createRequire(import.meta.url).resolve('stripe'))), 'esm');

function dtsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...dtsFiles(path));
    else if (entry.name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** Strips comments and joins a declaration file into statements we can scan line by line. */
function codeLines(text: string): string[] {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .split('\n')
    .map((l) => l.replace(/\/\/.*$/, '').trim())
    .filter((l) => l !== '');
}

function braceDelta(line: string): number {
  let d = 0;
  for (const ch of line) {
    if (ch === '{') d++;
    else if (ch === '}') d--;
  }
  return d;
}

export class SdkReference {
  private readonly interfaces = new Map<string, SdkInterface>();
  private readonly scopes = new Map<string, FileScope>();

  constructor(root: string = esmRoot) {
    for (const path of dtsFiles(root)) this.parseFile(root, path);
  }

  /** A top-level interface, e.g. get('resources/Customers.d.ts', 'Customer'). */
  get(file: string, name: string): SdkInterface {
    const found = this.interfaces.get(`${file}#${name}`);
    if (found === undefined)
      throw new Error(`stripe's types declare no interface ${name} in ${file}`);
    return found;
  }

  requiredKeys(iface: SdkInterface): string[] {
    return iface.properties.filter((p) => !p.optional).map((p) => p.name);
  }

  /**
   * What `value` gets wrong against `iface`, recursively: every required key it lacks ("missing
   * invoice_settings.footer") and every null where the type allows none ("null lines").
   */
  missingKeys(iface: SdkInterface, value: unknown, path = ''): string[] {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return [];
    const record = value as Record<string, unknown>;
    const out: string[] = [];
    for (const p of iface.properties) {
      const at = path === '' ? p.name : `${path}.${p.name}`;
      if (!(p.name in record)) {
        if (!p.optional) out.push(`missing ${at}`);
        continue;
      }
      if (record[p.name] === null && !/\bnull\b/.test(p.type)) out.push(`null ${at} (${p.type})`);
      out.push(...this.missingInType(iface.key, p.type, record[p.name], at));
    }
    return out;
  }

  /** The interface of `data.object` for an event type, as Stripe's Events.d.ts declares it. */
  eventObject(eventType: string): SdkInterface {
    const file = 'resources/Events.d.ts';
    for (const iface of this.interfaces.values()) {
      if (!iface.key.startsWith(`${file}#`)) continue;
      if (!iface.properties.some((p) => p.name === 'type' && p.type === `'${eventType}'`)) continue;
      const data = this.interfaces.get(`${iface.key}.Data`);
      const object = data?.properties.find((p) => p.name === 'object');
      const resolved = object === undefined ? undefined : this.resolve(data!.key, object.type);
      if (resolved === undefined)
        throw new Error(`stripe's types give ${eventType} no resolvable data.object`);
      return resolved;
    }
    throw new Error(`stripe's types declare no event "${eventType}"`);
  }

  private missingInType(context: string, type: string, value: unknown, path: string): string[] {
    if (value === null || typeof value !== 'object') return [];
    const refs = this.references(type);
    if (Array.isArray(value)) {
      const element = refs.arrays;
      if (element === undefined) return [];
      return value.flatMap((v, i) => this.missingInType(context, element, v, `${path}[${i}]`));
    }
    if (refs.list !== undefined) {
      const list = value as Record<string, unknown>;
      const out = ['object', 'data', 'has_more', 'url']
        .filter((k) => !(k in list))
        .map((k) => `missing ${path}.${k}`);
      if (Array.isArray(list.data))
        out.push(
          ...list.data.flatMap((v, i) =>
            this.missingInType(context, refs.list!, v, `${path}.data[${i}]`),
          ),
        );
      return out;
    }
    // A union of several object types (`string | Customer | DeletedCustomer`): pick by `object`.
    const candidates = refs.named
      .map((n) => this.resolve(context, n))
      .filter((i): i is SdkInterface => i !== undefined);
    const obj = (value as Record<string, unknown>).object;
    const chosen =
      candidates.length === 1
        ? candidates[0]
        : candidates.find(
            (c) =>
              c.properties.some((p) => p.name === 'object' && p.type === `'${String(obj)}'`) &&
              !c.properties.some((p) => p.name === 'deleted' && !p.optional),
          );
    return chosen === undefined ? [] : this.missingKeys(chosen, value, path);
  }

  /** The named types a property type mentions: plain names, Array<…> elements, ApiList<…> items. */
  private references(type: string): { named: string[]; arrays?: string; list?: string } {
    const t = type.trim();
    const list = /^ApiList<(.+)>(\s*\|\s*null)?$/.exec(t);
    if (list) return { named: [], list: list[1]! };
    const array = /^Array<(.+)>(\s*\|\s*null)?$/.exec(t);
    if (array) return { named: [], arrays: array[1]! };
    if (t.startsWith('{')) return { named: [] };
    const named = t
      .split('|')
      .map((s) => s.trim())
      .filter((s) => /^[A-Z][\w.]*$/.test(s) && s !== 'Metadata' && s !== 'Decimal');
    return { named };
  }

  /** Resolves a type name the way TypeScript does: innermost enclosing namespace first, then imports. */
  private resolve(context: string, name: string): SdkInterface | undefined {
    const [file, qualified] = context.split('#') as [string, string];
    const parts = qualified.split('.');
    for (let i = parts.length; i >= 0; i--) {
      const candidate = [...parts.slice(0, i), name].join('.');
      const found = this.interfaces.get(`${file}#${candidate}`);
      if (found !== undefined) return found;
    }
    const [head, ...rest] = name.split('.');
    const imported = this.scopes.get(file)?.imports.get(head!);
    return imported === undefined ? undefined : this.resolveImported(imported, rest);
  }

  /** `Checkout.Session`: Checkout is a namespace file that imports Session from another file. */
  private resolveImported(target: string, rest: readonly string[]): SdkInterface | undefined {
    const found = this.interfaces.get([target, ...rest].join('.'));
    if (found !== undefined || rest.length === 0) return found;
    const next = this.scopes.get(target.split('#')[0]!)?.imports.get(rest[0]!);
    return next === undefined ? undefined : this.resolveImported(next, rest.slice(1));
  }

  private parseFile(root: string, path: string): void {
    const file = relative(root, path).split('\\').join('/');
    const scope: FileScope = { file, imports: new Map() };
    this.scopes.set(file, scope);
    const lines = codeLines(readFileSync(path, 'utf8'));
    // Stack of open blocks: a namespace or interface name, or null for any other brace.
    const stack: ({
      kind: 'namespace' | 'interface';
      name: string;
      props: SdkProperty[];
    } | null)[] = [];
    let pending = '';
    for (const raw of lines) {
      const imp = /^import \{([^}]*)\} from '(\.[^']+)\.js';$/.exec(raw);
      if (imp && stack.length === 0) {
        const target = join(dirname(file), `${imp[2]}.d.ts`).split('\\').join('/');
        for (const spec of imp[1]!
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)) {
          const [orig, local] = spec.split(/\s+as\s+/);
          scope.imports.set((local ?? orig)!, `${target}#${orig}`);
        }
        continue;
      }
      const top = stack[stack.length - 1];
      if (top?.kind === 'interface' && pending === '' && /^[\w]+\??:/.test(raw)) {
        pending = raw;
      } else if (pending !== '') {
        pending += ` ${raw}`;
      }
      if (pending !== '') {
        // A property statement ends at `;` once its inline braces are closed.
        if (braceDelta(pending) === 0 && pending.endsWith(';')) {
          const m = /^(\w+)(\?)?:\s*([\s\S]*);$/.exec(pending)!;
          top!.props.push({ name: m[1]!, optional: m[2] === '?', type: m[3]! });
          pending = '';
        }
        continue;
      }
      const ns = /^(?:export )?(?:declare )?namespace (\w+) \{$/.exec(raw);
      const iface = /^(?:export )?interface (\w+)(?:<[^>]*>)?(?: extends [^{]+)? \{$/.exec(raw);
      if (ns) stack.push({ kind: 'namespace', name: ns[1]!, props: [] });
      else if (iface) stack.push({ kind: 'interface', name: iface[1]!, props: [] });
      else {
        for (let d = braceDelta(raw); d > 0; d--) stack.push(null);
        for (let d = braceDelta(raw); d < 0; d++) this.close(file, stack);
        continue;
      }
      if (raw.endsWith('{}')) this.close(file, stack);
      continue;
    }
    // `}` lines for named blocks are handled above via braceDelta; nothing else to flush.
  }

  private close(
    file: string,
    stack: ({ kind: 'namespace' | 'interface'; name: string; props: SdkProperty[] } | null)[],
  ): void {
    const block = stack.pop();
    if (block == null || block.kind !== 'interface') return;
    const names = stack
      .filter((b): b is NonNullable<typeof b> => b !== null && b.kind === 'namespace')
      .map((b) => b.name);
    const key = `${file}#${[...names, block.name].join('.')}`;
    const prior = this.interfaces.get(key);
    // Declaration merging: a second block with the same name adds properties.
    this.interfaces.set(key, { key, properties: [...(prior?.properties ?? []), ...block.props] });
  }
}
