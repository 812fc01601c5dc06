-- Migrations serialise on a PostgreSQL advisory lock now, which the server
-- releases when a session dies; bun's lock table could be left locked by a
-- killed process.
DROP TABLE IF EXISTS bun_migration_locks;
