import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `webhook_endpoints` (secret in clear: every delivery is signed with it; `all_operators` for
 * admins) and `webhook_deliveries`, unique per endpoint and turn so a repeated job stores nothing twice.
 */
export class CreateWebhooks1764503600000 implements MigrationInterface {
  name = 'CreateWebhooks1764503600000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE webhook_endpoints (
        id uuid NOT NULL DEFAULT gen_random_uuid(),
        operator_id uuid NOT NULL,
        url varchar(2000) NOT NULL,
        events varchar(32)[] NOT NULL,
        all_operators boolean NOT NULL DEFAULT false,
        secret varchar(100) NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT pk_webhook_endpoints PRIMARY KEY (id),
        CONSTRAINT fk_webhook_endpoints_operator FOREIGN KEY (operator_id) REFERENCES operators (id) ON DELETE CASCADE
      )`);
    await q.query(
      `CREATE INDEX ix_webhook_endpoints_operator ON webhook_endpoints (operator_id, created_at)`,
    );
    await q.query(
      `CREATE INDEX ix_webhook_endpoints_all_operators ON webhook_endpoints (id) WHERE all_operators`,
    );
    await q.query(`
      CREATE TABLE webhook_deliveries (
        id uuid NOT NULL DEFAULT gen_random_uuid(),
        endpoint_id uuid NOT NULL,
        turn_id uuid NOT NULL,
        event_type varchar(32) NOT NULL,
        payload jsonb NOT NULL,
        status varchar(16) NOT NULL DEFAULT 'pending',
        attempts integer NOT NULL DEFAULT 0,
        last_status_code integer,
        last_error varchar(500),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT pk_webhook_deliveries PRIMARY KEY (id),
        CONSTRAINT fk_webhook_deliveries_endpoint FOREIGN KEY (endpoint_id) REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
        CONSTRAINT fk_webhook_deliveries_turn FOREIGN KEY (turn_id) REFERENCES chat_turns (id) ON DELETE CASCADE,
        CONSTRAINT ck_webhook_deliveries_status CHECK (status IN ('pending', 'delivered', 'failed'))
      )`);
    await q.query(
      `CREATE UNIQUE INDEX uq_webhook_deliveries_endpoint_turn ON webhook_deliveries (endpoint_id, turn_id)`,
    );
    await q.query(
      `CREATE INDEX ix_webhook_deliveries_endpoint_created ON webhook_deliveries (endpoint_id, created_at DESC)`,
    );
    await q.query(`CREATE INDEX ix_webhook_deliveries_turn ON webhook_deliveries (turn_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE webhook_deliveries`);
    await q.query(`DROP TABLE webhook_endpoints`);
  }
}
