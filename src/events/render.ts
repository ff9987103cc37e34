// Renders an envelope template: every string value "$name" is replaced by the named value;
// a name that resolves to undefined drops its key (or its array slot).
import { TwinError } from '../errors.js';
import type { JsonValue } from '../log/json-value.js';

export function renderTemplate(
  template: JsonValue,
  values: Readonly<Record<string, JsonValue | undefined>>,
  path = 'envelope',
): JsonValue | undefined {
  if (typeof template === 'string' && template.startsWith('$') && template.length > 1) {
    if (template.startsWith('$$')) return template.slice(1);
    const name = template.slice(1);
    if (!(name in values)) {
      throw new TwinError(
        'INVALID_CONFIG',
        `${path} uses "$${name}", which nothing provides; known values: ${Object.keys(values)
          .map((k) => `$${k}`)
          .join(', ')}`,
        { path },
      );
    }
    return values[name];
  }
  if (Array.isArray(template)) {
    const out: JsonValue[] = [];
    template.forEach((item, i) => {
      const v = renderTemplate(item, values, `${path}[${i}]`);
      if (v !== undefined) out.push(v);
    });
    return out;
  }
  if (template !== null && typeof template === 'object') {
    const out: Record<string, JsonValue> = {};
    for (const [key, item] of Object.entries(template)) {
      const v = renderTemplate(item, values, `${path}.${key}`);
      if (v !== undefined) out[key] = v;
    }
    return out;
  }
  return template;
}

export function valueAt(body: unknown, dottedPath: string): unknown {
  let value = body;
  for (const part of dottedPath.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}
