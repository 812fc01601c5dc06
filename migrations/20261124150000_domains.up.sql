-- Custom domains: what only they need beyond the shared content tables.

-- ssl_status says whether a certificate can be issued (models.SSLPending,
-- SSLReady, SSLFailed).
ALTER TABLE domains ADD CONSTRAINT domains_ssl_status_check CHECK (ssl_status IN ('pending', 'ready', 'failed'));

-- The periodic DNS check reads, across stores, the pending and active
-- domains checked longest ago (models.DueDomains).
CREATE INDEX domains_due_idx ON domains (checked_at NULLS FIRST, id) WHERE status IN ('pending', 'active');
