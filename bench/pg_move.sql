-- One move of the host on its PostgreSQL store, in pgbench's language (bench/pg_moves.py runs it): the statements
-- of PostgresStore.get, .advance (the step and what each of the five audiences saw) and .notify, on a table drawn
-- at random among :tables, with the store's bytes (:token_bytes of token, :seen_bytes per audience).
\set n random(0, :tables - 1)
BEGIN;
SELECT table_id, game, token, seq, seat_keys, settings, due_ms, closed, created_ms, updated_ms, owner
    FROM tables WHERE table_id = 'bench-' || :n;
SELECT audience, digest FROM capabilities WHERE table_id = 'bench-' || :n;
COMMIT;
BEGIN;
UPDATE tables SET token = decode(repeat('ab', :token_bytes), 'hex'), seq = seq + 1, due_ms = 0, lease_owner = '',
    lease_until_ms = 0, updated_ms = 1 WHERE table_id = 'bench-' || :n AND NOT closed RETURNING seq \gset
INSERT INTO steps (table_id, seq, action) VALUES ('bench-' || :n, :seq, '\x00'::bytea);
INSERT INTO seen (table_id, audience, seq, body) VALUES ('bench-' || :n, '0', :seq, decode(repeat('cd', :seen_bytes), 'hex'));
INSERT INTO seen (table_id, audience, seq, body) VALUES ('bench-' || :n, '1', :seq, decode(repeat('cd', :seen_bytes), 'hex'));
INSERT INTO seen (table_id, audience, seq, body) VALUES ('bench-' || :n, '2', :seq, decode(repeat('cd', :seen_bytes), 'hex'));
INSERT INTO seen (table_id, audience, seq, body) VALUES ('bench-' || :n, '3', :seq, decode(repeat('cd', :seen_bytes), 'hex'));
INSERT INTO seen (table_id, audience, seq, body) VALUES ('bench-' || :n, 'spectators', :seq, decode(repeat('cd', :seen_bytes), 'hex'));
COMMIT;
SELECT pg_notify('mazziere_host', 'bench-' || :n || ':' || :seq);
