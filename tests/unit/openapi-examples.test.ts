import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it, vi } from 'vitest';
import type { z } from 'zod';

// Every example the OpenAPI document shows is a value its own zod schema accepts: /docs sends
// the request examples as they are, and a generated client may too.

interface Rendered {
  zodSchema: z.ZodType;
  example: unknown;
  path: string;
}

const rendered = vi.hoisted(() => [] as Rendered[]);

// Records every schema zod-openapi renders that carries an example, with the zod schema it came from.
vi.mock('zod-openapi', async (importOriginal) => {
  const actual = await importOriginal<typeof import('zod-openapi')>();
  return {
    ...actual,
    createDocument: (document: Parameters<typeof actual.createDocument>[0], options?: Parameters<typeof actual.createDocument>[1]) =>
      actual.createDocument(document, {
        ...options,
        override: (context) => {
          const example = (context.jsonSchema as { example?: unknown }).example;
          if (example !== undefined)
            rendered.push({ zodSchema: context.zodSchema as unknown as z.ZodType, example, path: context.path.join('.') });
          options?.override?.(context);
        },
      }),
  };
});

const { buildOpenApiDocument } = await import('@/server/openapi/document');
const { V1_ROUTES } = await import('@/server/surfaces/v1');
const document = buildOpenApiDocument(
  V1_ROUTES.map((route) => route.doc),
  'http://127.0.0.1:3000',
) as unknown as Record<string, unknown>;

/** Every `example` and `examples` entry anywhere in the document, with where it is. */
function examplesIn(node: unknown, at: string, found: { at: string; value: unknown }[] = []) {
  if (Array.isArray(node)) node.forEach((item, index) => examplesIn(item, `${at}/${index}`, found));
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === 'example') found.push({ at: `${at}/example`, value });
      else if (key === 'examples' && Array.isArray(value))
        value.forEach((item, index) => found.push({ at: `${at}/examples/${index}`, value: item }));
      else if (key === 'examples' && value && typeof value === 'object') {
        for (const [name, entry] of Object.entries(value))
          found.push({ at: `${at}/examples/${name}`, value: (entry as { value?: unknown }).value });
      } else examplesIn(value, `${at}/${key}`, found);
    }
  }
  return found;
}

describe("the OpenAPI document's examples", () => {
  it('are each accepted by the zod schema they were written on', () => {
    expect(rendered.length).toBeGreaterThan(10);
    for (const { zodSchema, example, path } of rendered) {
      const parsed = zodSchema.safeParse(example);
      expect(parsed.success, `${path}: ${JSON.stringify(example)} ${parsed.error?.message ?? ''}`).toBe(true);
    }
  });

  it('all come from a zod schema (none is written into the document by hand, unchecked)', () => {
    const found = examplesIn(document, '#');
    expect(found.length).toBeGreaterThan(10);
    for (const { at, value } of found) {
      expect(
        rendered.some((entry) => isDeepStrictEqual(entry.example, value)),
        `${at}: ${JSON.stringify(value)}`,
      ).toBe(true);
    }
  });

  it('include a whole request for every operation that takes a body', () => {
    type Operation = { requestBody?: { content: Record<string, { schema: { $ref?: string; example?: unknown } }> } };
    const paths = document.paths as Record<string, Record<string, Operation>>;
    const schemas = (document.components as { schemas: Record<string, { example?: unknown }> }).schemas;
    const bodies = Object.entries(paths).flatMap(([path, operations]) =>
      Object.entries(operations)
        .filter(([, operation]) => operation.requestBody)
        .map(([method, operation]) => ({ at: `${method} ${path}`, operation })),
    );
    expect(bodies.length).toBeGreaterThanOrEqual(8);
    for (const { at, operation } of bodies) {
      const schema = operation.requestBody!.content['application/json']!.schema;
      const example = schema.$ref ? schemas[schema.$ref.replace('#/components/schemas/', '')]?.example : schema.example;
      expect(example, at).toEqual(expect.any(Object));
    }
  });
});
