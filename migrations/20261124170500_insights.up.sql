-- Insights: the findings the daily insights job makes per store and day
-- (internal/insights runs internal/analytics' finders for the store's local
-- yesterday). A rerun of a day replaces that day's findings; older days
-- stay as history. GET /store/insights answers the latest day computed.

-- Every day computed per store, with or without findings: the job's "is
-- this store due" and the read's "which day is current" both read it, so a
-- day that found nothing still replaces the day before as current.
CREATE TABLE insight_runs (
    store_id    bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    day         date NOT NULL,
    findings    int NOT NULL DEFAULT 0,
    computed_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (store_id, day)
);

-- One finding. subject_key names what it is about within its kind (a
-- landing path, a product id, a payment method, a lower-cased discount
-- code): with the day and kind it is the finding's key, so one subject has
-- one finding of a kind a day.
CREATE TABLE insights (
    id            bigserial PRIMARY KEY,
    store_id      bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    day           date NOT NULL,
    kind          text NOT NULL,
    subject_key   text NOT NULL,
    subject_type  text,
    subject_id    bigint,
    subject_label text,
    headline      text NOT NULL,
    detail        text,
    action        text,
    -- Both windows' counts and rates, the z-test's z and p.
    metrics       jsonb NOT NULL,
    sample_size   bigint NOT NULL,
    -- The test statistic: findings of a day are listed by its size.
    z             double precision NOT NULL,
    evidence_url  text,
    created_at    timestamptz NOT NULL DEFAULT now(),
    UNIQUE (store_id, day, kind, subject_key),
    FOREIGN KEY (store_id, day) REFERENCES insight_runs (store_id, day) ON DELETE CASCADE
);

-- The payment finder reads a store's attempts of two weeks; the table had
-- only its per-checkout index.
CREATE INDEX checkout_payment_attempts_store_created_idx ON checkout_payment_attempts (store_id, created_at);
