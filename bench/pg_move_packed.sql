-- One move as bench/pg_move.sql, but the step's row with what the five audiences saw packed in it (steps.seen, as
-- the SQLite store writes it, and PostgresStore reads it; a later release may write it): one INSERT for six.
\set n random(0, :tables - 1)
BEGIN;
SELECT table_id, game, token, seq, seat_keys, settings, due_ms, closed, created_ms, updated_ms, owner
    FROM tables WHERE table_id = 'bench-' || :n;
SELECT audience, digest FROM capabilities WHERE table_id = 'bench-' || :n;
COMMIT;
BEGIN;
UPDATE tables SET token = decode(repeat('ab', :token_bytes), 'hex'), seq = seq + 1, due_ms = 0, lease_owner = '',
    lease_until_ms = 0, updated_ms = 1 WHERE table_id = 'bench-' || :n AND NOT closed RETURNING seq \gset
INSERT INTO steps (table_id, seq, action, seen) VALUES ('bench-' || :n, :seq, '\x00'::bytea,
    decode(repeat('0001' || lpad(to_hex(:seen_bytes::int), 8, '0') || '30' || repeat('cd', :seen_bytes), 5), 'hex'));
COMMIT;
SELECT pg_notify('mazziere_host', 'bench-' || :n || ':' || :seq);
