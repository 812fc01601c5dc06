DROP INDEX domains_due_idx;
ALTER TABLE domains DROP CONSTRAINT domains_ssl_status_check;
