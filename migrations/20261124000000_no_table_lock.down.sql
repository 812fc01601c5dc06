CREATE TABLE IF NOT EXISTS bun_migration_locks (id bigserial PRIMARY KEY, table_name varchar UNIQUE);
