/**
 * FerretDB 1.24 over PostgreSQL stores a collection as a table with one `_jsonb` column and pushes
 * a top-level equality down as `_jsonb->'field' @> value`. The indexes it creates for
 * `createIndexes` are btree ones on `((_jsonb -> 'field'))`, which `@>` cannot use, so every such
 * query scans the whole table. This event trigger gives each field of every btree index FerretDB
 * creates a GIN index on the same expression, which `@>` does use: services keep declaring their
 * indexes through mongoose and need to know nothing of it.
 *
 * - Runs in the transaction of FerretDB's CREATE INDEX, so nothing depends on timing.
 * - Its own CREATE INDEX fires it again: GIN indexes are skipped, which ends the recursion.
 * - Nested fields (`(_jsonb -> 'a') -> 'b'`) are skipped: FerretDB pushes no dot notation down.
 * - FerretDB's metadata table is skipped: FerretDB reads it whole.
 * - One GIN index per (table, field), named `<table>_<field>_<hash>_gin`, whatever number of
 *   btree indexes share the field. jsonb_path_ops: smaller than jsonb_ops, and serves `@>`.
 * - Their pending lists (fastupdate) are merged by dev-db's maintenance where autovacuum is off:
 *   see startMaintenance.
 * - FerretDB knows nothing of them (its listIndexes reads its own metadata); DROP TABLE drops
 *   them with the collection; dropIndexes leaves them (harmless, and another index may share them).
 * - FerretDB's own btree index is then replaced, under the same name, by an empty one (`WHERE
 *   false`) unless it is unique: no FerretDB query can use it (it pushes down no sort, and `@>`
 *   needs the GIN ones), yet every insert and update of the collection paid for it (a third of the
 *   indexes of the messages collection). Unique indexes stay: they enforce uniqueness. FerretDB
 *   still finds an index of that name to drop. The empty index fires this trigger again and is
 *   skipped (it has a predicate).
 *
 * Event triggers need a superuser: see installGinTrigger.
 */
export const GIN_TRIGGER_NAME = 'devdb_gin_for_index';

export const GIN_TRIGGER_SQL = `
CREATE OR REPLACE FUNCTION public.${GIN_TRIGGER_NAME}() RETURNS event_trigger
LANGUAGE plpgsql AS $fn$
DECLARE
  cmd record;
  idx record;
  k int;
  field text;
  gin_name text;
BEGIN
  FOR cmd IN SELECT objid FROM pg_event_trigger_ddl_commands() WHERE object_type = 'index' LOOP
    SELECT i.indexrelid, i.indnkeyatts, i.indisunique, i.indpred IS NOT NULL AS partial, am.amname,
           ic.relname AS name, t.relname AS tbl, n.nspname AS sch
      INTO idx
      FROM pg_index i
      JOIN pg_class ic ON ic.oid = i.indexrelid
      JOIN pg_am am ON am.oid = ic.relam
      JOIN pg_class t ON t.oid = i.indrelid
      JOIN pg_namespace n ON n.oid = t.relnamespace
     WHERE i.indexrelid = cmd.objid;
    IF NOT FOUND OR idx.amname <> 'btree' OR idx.partial OR idx.tbl = '_ferretdb_database_metadata' THEN
      CONTINUE;
    END IF;
    FOR k IN 1..idx.indnkeyatts LOOP
      -- A key of FerretDB's index reads ((_jsonb -> 'field'::text)), quotes doubled inside.
      field := substring(pg_get_indexdef(idx.indexrelid, k, false)
                         FROM '^\\(\\(_jsonb -> ''((?:[^'']|'''')*)''::text\\)\\)$');
      IF field IS NULL THEN
        CONTINUE;
      END IF;
      field := replace(field, '''''', '''');
      gin_name := left(idx.tbl, 20) || '_' || left(regexp_replace(lower(field), '[^a-z0-9]+', '_', 'g'), 20)
                  || '_' || left(md5(idx.tbl || '.' || field), 8) || '_gin';
      EXECUTE format('CREATE INDEX IF NOT EXISTS %I ON %I.%I USING gin ((_jsonb -> %L) jsonb_path_ops)',
                     gin_name, idx.sch, idx.tbl, field);
    END LOOP;
    IF NOT idx.indisunique THEN
      EXECUTE format('DROP INDEX %I.%I', idx.sch, idx.name);
      EXECUTE format('CREATE INDEX %I ON %I.%I ((_jsonb -> ''_id'')) WHERE false', idx.name, idx.sch, idx.tbl);
    END IF;
  END LOOP;
END
$fn$;
-- Databases made before the trigger emptied FerretDB's btree indexes: the same, once.
DO $do$
DECLARE
  idx record;
BEGIN
  FOR idx IN
    SELECT ic.relname AS name, t.relname AS tbl, n.nspname AS sch
      FROM pg_index i
      JOIN pg_class ic ON ic.oid = i.indexrelid
      JOIN pg_am am ON am.oid = ic.relam
      JOIN pg_class t ON t.oid = i.indrelid
      JOIN pg_namespace n ON n.oid = t.relnamespace
     WHERE am.amname = 'btree' AND NOT i.indisunique AND i.indpred IS NULL
       AND t.relname <> '_ferretdb_database_metadata'
       AND n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')
       AND pg_get_indexdef(i.indexrelid, 1, false) LIKE '((_jsonb -> %'
  LOOP
    EXECUTE format('DROP INDEX %I.%I', idx.sch, idx.name);
    EXECUTE format('CREATE INDEX %I ON %I.%I ((_jsonb -> ''_id'')) WHERE false', idx.name, idx.sch, idx.tbl);
  END LOOP;
END
$do$;
DROP EVENT TRIGGER IF EXISTS ${GIN_TRIGGER_NAME};
CREATE EVENT TRIGGER ${GIN_TRIGGER_NAME} ON ddl_command_end WHEN TAG IN ('CREATE INDEX')
  EXECUTE FUNCTION public.${GIN_TRIGGER_NAME}();
`;
