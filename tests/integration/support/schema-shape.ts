import { createRequire } from 'node:module';
import type pg from 'pg';

// One shape, built two ways: from schema.prisma (through the DMMF of Prisma's own WASM schema
// parser) and from a live database (through the catalogs). If schema.prisma and the migrations
// agree, the two are equal; a diff of the two shapes says exactly where they disagree.

export interface ColumnShape {
  type: string; // information_schema data_type, or the enum's name for USER-DEFINED
  udt: string;
  length: number | null; // character_maximum_length
  precision: number | string | null; // datetime_precision for timestamps; "precision,scale" for numeric
  nullable: boolean;
  default: string | null; // normalized: 'now' | 'autoincrement' | literal text | null
}

export interface TableShape {
  columns: Record<string, ColumnShape>;
  primaryKey: string[];
  /** "name(col,col)" for every unique index/constraint other than the primary key. */
  unique: string[];
  /** "name(col,col)" for every plain index. */
  indexes: string[];
  /** "name(cols) -> table(cols) on delete X on update Y". */
  foreignKeys: string[];
}

export interface SchemaShape {
  tables: Record<string, TableShape>;
  enums: Record<string, string[]>;
}

interface DmmfField {
  name: string;
  dbName?: string | null;
  kind: 'scalar' | 'object' | 'enum' | 'unsupported';
  isList: boolean;
  isRequired: boolean;
  isId: boolean;
  isUnique: boolean;
  hasDefaultValue: boolean;
  type: string;
  nativeType?: [string, string[]] | null;
  default?: unknown;
  relationFromFields?: string[];
  relationToFields?: string[];
  relationOnDelete?: string;
  relationOnUpdate?: string;
}

interface DmmfModel {
  name: string;
  dbName: string | null;
  fields: DmmfField[];
  primaryKey: { name: string | null; fields: string[] } | null;
}

interface DmmfIndex {
  model: string;
  type: 'id' | 'unique' | 'normal' | 'fulltext';
  dbName?: string | null;
  fields: { name: string }[];
}

interface Dmmf {
  datamodel: {
    models: DmmfModel[];
    enums: { name: string; dbName: string | null; values: { name: string; dbName: string | null }[] }[];
    indexes: DmmfIndex[];
  };
}

export function getDmmf(schemaText: string): Dmmf {
  const require = createRequire(import.meta.url);
  const wasm = require('@prisma/prisma-schema-wasm') as { get_dmmf(params: string): string };
  return JSON.parse(wasm.get_dmmf(JSON.stringify({ prismaSchema: [['schema.prisma', schemaText]] }))) as Dmmf;
}

const ACTIONS: Record<string, string> = {
  a: 'NoAction',
  r: 'Restrict',
  c: 'Cascade',
  n: 'SetNull',
  d: 'SetDefault',
};

/** The name Prisma gives a constraint or index it is not told to name (63 bytes at most). */
function prismaName(table: string, columns: string[], suffix: string): string {
  const name = `${table}_${columns.join('_')}_${suffix}`;
  return name.length <= 63 ? name : `${name.slice(0, 63 - suffix.length - 1)}_${suffix}`;
}

function scalarColumn(field: DmmfField, enumDbNames: Map<string, string>): Omit<ColumnShape, 'nullable' | 'default'> {
  if (field.isList) {
    // A scalar list is a PostgreSQL array of the element type (String[] is text[], udt _text).
    const element = scalarColumn({ ...field, isList: false }, enumDbNames);
    if (field.kind === 'enum') throw new Error(`schema-shape: enum list field ${field.name} is not handled yet; extend the test`);
    return { type: 'ARRAY', udt: `_${element.udt}`, length: null, precision: null };
  }
  if (field.kind === 'enum') {
    const udt = enumDbNames.get(field.type)!;
    return { type: 'USER-DEFINED', udt, length: null, precision: null };
  }
  const [native, args] = field.nativeType ?? [null, []];
  const arg = args[0] === undefined ? null : Number(args[0]);
  switch (field.type) {
    case 'String':
      if (native === null || native === 'Text') return { type: 'text', udt: 'text', length: null, precision: null };
      if (native === 'Uuid') return { type: 'uuid', udt: 'uuid', length: null, precision: null };
      if (native === 'VarChar') return { type: 'character varying', udt: 'varchar', length: arg, precision: null };
      if (native === 'Char') return { type: 'character', udt: 'bpchar', length: arg ?? 1, precision: null };
      break;
    case 'Int':
      if (native === null || native === 'Integer') return { type: 'integer', udt: 'int4', length: null, precision: null };
      if (native === 'SmallInt') return { type: 'smallint', udt: 'int2', length: null, precision: null };
      break;
    case 'BigInt':
      if (native === null || native === 'BigInt') return { type: 'bigint', udt: 'int8', length: null, precision: null };
      break;
    case 'Boolean':
      return { type: 'boolean', udt: 'bool', length: null, precision: null };
    case 'Float':
      if (native === null || native === 'DoublePrecision')
        return { type: 'double precision', udt: 'float8', length: null, precision: null };
      break;
    case 'Json':
      if (native === null || native === 'JsonB') return { type: 'jsonb', udt: 'jsonb', length: null, precision: null };
      if (native === 'Json') return { type: 'json', udt: 'json', length: null, precision: null };
      break;
    case 'Bytes':
      return { type: 'bytea', udt: 'bytea', length: null, precision: null };
    case 'Decimal':
      // precision is "p,s" for a numeric (numeric_precision, numeric_scale), compared as text.
      if (native === null || native === 'Decimal')
        return { type: 'numeric', udt: 'numeric', length: null, precision: `${args[0] ?? 65},${args[1] ?? 30}` };
      break;
    case 'DateTime':
      if (native === 'Timestamptz') return { type: 'timestamp with time zone', udt: 'timestamptz', length: null, precision: arg ?? 6 };
      if (native === null || native === 'Timestamp')
        return { type: 'timestamp without time zone', udt: 'timestamp', length: null, precision: arg ?? 3 };
      if (native === 'Date') return { type: 'date', udt: 'date', length: null, precision: 0 };
      break;
  }
  throw new Error(`schema-shape: ${field.type} ${native ?? ''} (field ${field.name}) is not handled yet; extend the test`);
}

function expectedDefault(field: DmmfField): string | null {
  if (!field.hasDefaultValue || field.default === undefined) return null;
  const value = field.default;
  if (Array.isArray(value)) return JSON.stringify(value);
  if (value !== null && typeof value === 'object' && 'name' in value) {
    const fn = value as { name: string; args: unknown[] };
    if (fn.name === 'now') return 'now';
    if (fn.name === 'autoincrement') return 'autoincrement';
    if (['uuid', 'cuid', 'nanoid', 'ulid'].includes(fn.name)) return null; // made by the client, not the database
    if (fn.name === 'dbgenerated') return String(fn.args[0] ?? '');
    throw new Error(`schema-shape: default ${fn.name}() is not handled yet`);
  }
  return String(value);
}

export function shapeFromSchema(schemaText: string): SchemaShape {
  const { datamodel } = getDmmf(schemaText);
  const enumDbNames = new Map(datamodel.enums.map((e) => [e.name, e.dbName ?? e.name]));
  const tableOf = new Map(datamodel.models.map((m) => [m.name, m.dbName ?? m.name]));
  const columnOf = (model: string, field: string) => {
    const f = datamodel.models.find((m) => m.name === model)!.fields.find((x) => x.name === field)!;
    return f.dbName ?? f.name;
  };
  const tables: Record<string, TableShape> = {};
  for (const model of datamodel.models) {
    const table = tableOf.get(model.name)!;
    const columns: Record<string, ColumnShape> = {};
    for (const field of model.fields) {
      if (field.kind === 'object') continue;
      if (field.kind === 'unsupported') throw new Error(`schema-shape: Unsupported field ${field.name}`);
      columns[field.dbName ?? field.name] = {
        ...scalarColumn(field, enumDbNames),
        nullable: !field.isRequired,
        default: expectedDefault(field),
      };
    }
    const foreignKeys = model.fields
      .filter((f) => f.kind === 'object' && (f.relationFromFields?.length ?? 0) > 0)
      .map((f) => {
        const from = f.relationFromFields!.map((name) => columnOf(model.name, name));
        const to = f.relationToFields!.map((name) => columnOf(f.type, name));
        const optional = f.relationFromFields!.some((name) => !model.fields.find((x) => x.name === name)!.isRequired);
        const onDelete = f.relationOnDelete ?? (optional ? 'SetNull' : 'Restrict');
        const onUpdate = f.relationOnUpdate ?? 'Cascade';
        return `${prismaName(table, from, 'fkey')}(${from.join(',')}) -> ${tableOf.get(f.type)}(${to.join(',')}) on delete ${onDelete} on update ${onUpdate}`;
      })
      .sort();
    const indexes = datamodel.indexes.filter((index) => index.model === model.name);
    const cols = (index: DmmfIndex) => index.fields.map((f) => columnOf(model.name, f.name));
    const id = indexes.find((index) => index.type === 'id');
    tables[table] = {
      columns,
      primaryKey: id ? cols(id) : [],
      unique: indexes
        .filter((index) => index.type === 'unique')
        .map((index) => `${index.dbName ?? prismaName(table, cols(index), 'key')}(${cols(index).join(',')})`)
        .sort(),
      indexes: indexes
        .filter((index) => index.type === 'normal')
        .map((index) => `${index.dbName ?? prismaName(table, cols(index), 'idx')}(${cols(index).join(',')})`)
        .sort(),
      foreignKeys,
    };
  }
  const enums = Object.fromEntries(datamodel.enums.map((e) => [e.dbName ?? e.name, e.values.map((v) => v.dbName ?? v.name)]));
  return { tables, enums };
}

function normalizeDefault(raw: string | null): string | null {
  if (raw === null) return null;
  if (/^nextval\(/i.test(raw)) return 'autoincrement';
  if (/^(CURRENT_TIMESTAMP|now\(\))$/i.test(raw)) return 'now';
  if (/^ARRAY\[\]::[\w" .]+\[\]$/i.test(raw)) return '[]';
  const literal = /^'((?:[^']|'')*)'::[\w" .]+$/.exec(raw);
  if (literal) return literal[1]!.replace(/''/g, "'");
  return raw;
}

export async function shapeFromDatabase(client: pg.ClientBase, ignoreTables: string[] = ['_prisma_migrations']): Promise<SchemaShape> {
  const { rows: tableRows } = await client.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
  );
  const tables: Record<string, TableShape> = {};
  for (const { table_name } of tableRows) {
    if (ignoreTables.includes(table_name)) continue;
    tables[table_name] = { columns: {}, primaryKey: [], unique: [], indexes: [], foreignKeys: [] };
  }
  const { rows: columns } = await client.query<{
    table_name: string;
    column_name: string;
    data_type: string;
    udt_name: string;
    character_maximum_length: number | null;
    datetime_precision: number | null;
    is_nullable: 'YES' | 'NO';
    column_default: string | null;
    numeric_precision: number | null;
    numeric_scale: number | null;
  }>(
    `SELECT table_name, column_name, data_type, udt_name, character_maximum_length, datetime_precision, is_nullable, column_default,
            numeric_precision, numeric_scale
       FROM information_schema.columns WHERE table_schema = 'public' ORDER BY table_name, ordinal_position`,
  );
  for (const column of columns) {
    const table = tables[column.table_name];
    if (!table) continue;
    const isTime = /^(timestamp|date|time)/.test(column.data_type);
    table.columns[column.column_name] = {
      type: column.data_type,
      udt: column.udt_name,
      length: column.character_maximum_length,
      precision: isTime
        ? column.datetime_precision
        : column.data_type === 'numeric'
          ? `${column.numeric_precision},${column.numeric_scale}`
          : null,
      nullable: column.is_nullable === 'YES',
      default: normalizeDefault(column.column_default),
    };
  }
  const { rows: indexRows } = await client.query<{
    table_name: string;
    index_name: string;
    is_unique: boolean;
    is_primary: boolean;
    columns: string[];
  }>(
    `SELECT t.relname AS table_name, i.relname AS index_name, x.indisunique AS is_unique, x.indisprimary AS is_primary,
            array(SELECT a.attname FROM unnest(x.indkey) WITH ORDINALITY AS k(attnum, ord)
                  JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum ORDER BY k.ord)::text[] AS columns
       FROM pg_index x
       JOIN pg_class i ON i.oid = x.indexrelid
       JOIN pg_class t ON t.oid = x.indrelid
       JOIN pg_namespace n ON n.oid = t.relnamespace
      WHERE n.nspname = 'public'`,
  );
  for (const index of indexRows) {
    const table = tables[index.table_name];
    if (!table) continue;
    if (index.is_primary) table.primaryKey = index.columns;
    else if (index.is_unique) table.unique.push(`${index.index_name}(${index.columns.join(',')})`);
    else table.indexes.push(`${index.index_name}(${index.columns.join(',')})`);
  }
  const { rows: fkRows } = await client.query<{
    table_name: string;
    name: string;
    columns: string[];
    ref_table: string;
    ref_columns: string[];
    on_delete: string;
    on_update: string;
  }>(
    `SELECT t.relname AS table_name, c.conname AS name, r.relname AS ref_table,
            array(SELECT a.attname FROM unnest(c.conkey) WITH ORDINALITY AS k(attnum, ord)
                  JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum ORDER BY k.ord)::text[] AS columns,
            array(SELECT a.attname FROM unnest(c.confkey) WITH ORDINALITY AS k(attnum, ord)
                  JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.attnum ORDER BY k.ord)::text[] AS ref_columns,
            c.confdeltype AS on_delete, c.confupdtype AS on_update
       FROM pg_constraint c
       JOIN pg_class t ON t.oid = c.conrelid
       JOIN pg_class r ON r.oid = c.confrelid
       JOIN pg_namespace n ON n.oid = t.relnamespace
      WHERE c.contype = 'f' AND n.nspname = 'public'`,
  );
  for (const fk of fkRows) {
    const table = tables[fk.table_name];
    if (!table) continue;
    table.foreignKeys.push(
      `${fk.name}(${fk.columns.join(',')}) -> ${fk.ref_table}(${fk.ref_columns.join(',')}) on delete ${ACTIONS[fk.on_delete]} on update ${ACTIONS[fk.on_update]}`,
    );
  }
  for (const table of Object.values(tables)) {
    table.unique.sort();
    table.indexes.sort();
    table.foreignKeys.sort();
  }
  const { rows: enumRows } = await client.query<{ name: string; labels: string[] }>(
    `SELECT t.typname AS name, array_agg(e.enumlabel ORDER BY e.enumsortorder)::text[] AS labels
       FROM pg_type t JOIN pg_enum e ON e.enumtypid = t.oid JOIN pg_namespace n ON n.oid = t.typnamespace
      WHERE n.nspname = 'public' GROUP BY t.typname`,
  );
  const enums = Object.fromEntries(enumRows.map((row) => [row.name, row.labels]));
  return { tables, enums };
}

/** Dotted paths where the two shapes differ (empty when they agree). */
export function diffShapes(expected: SchemaShape, actual: SchemaShape): string[] {
  const flat = (shape: SchemaShape) => {
    const out = new Map<string, string>();
    for (const [name, labels] of Object.entries(shape.enums)) out.set(`enums.${name}`, JSON.stringify(labels));
    for (const [name, table] of Object.entries(shape.tables)) {
      out.set(`tables.${name}`, 'table');
      for (const [column, spec] of Object.entries(table.columns)) out.set(`tables.${name}.columns.${column}`, JSON.stringify(spec));
      out.set(`tables.${name}.primaryKey`, JSON.stringify(table.primaryKey));
      for (const key of ['unique', 'indexes', 'foreignKeys'] as const) {
        for (const entry of table[key]) out.set(`tables.${name}.${key}.${entry}`, 'present');
      }
    }
    return out;
  };
  const a = flat(expected);
  const b = flat(actual);
  const differing = new Set<string>();
  for (const [key, value] of a) if (b.get(key) !== value) differing.add(key);
  for (const key of b.keys()) if (!a.has(key)) differing.add(key);
  return [...differing].sort();
}
