-- Secrets the server keeps, each made once by the first process that needs it, and then the
-- same for every process on this database: behind a load balancer any process may answer what
-- another one gave (docs/deploy.md), such as a ranking page's cursor. The process writes the
-- random value itself, since SQLite and PostgreSQL share no function for random bytes.
CREATE TABLE secrets (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
