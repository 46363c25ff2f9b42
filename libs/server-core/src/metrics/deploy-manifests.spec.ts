import fs from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Service } from 'kubernetes-models/v1/Service';
import { z } from 'zod';
import { metricsRegistry } from './metrics';

const root = path.resolve(__dirname, '../../../..');
const file = path.join(root, 'deploy/k8s/corpus-chat.yaml');
const docs: any[] = parseAllDocuments(fs.readFileSync(file, 'utf8')).map((d) => d.toJS());
const ofKind = (kind: string) => docs.filter((d) => d.kind === kind);

/** The fields of KEDA's ScaledObject (keda.sh/v1alpha1) these manifests use. */
const scaledObject = z.object({
  apiVersion: z.literal('keda.sh/v1alpha1'),
  kind: z.literal('ScaledObject'),
  metadata: z.object({ name: z.string() }),
  spec: z.strictObject({
    scaleTargetRef: z.strictObject({ name: z.string() }),
    minReplicaCount: z.number().int().min(0),
    maxReplicaCount: z.number().int().min(1),
    triggers: z
      .array(
        z.object({
          type: z.literal('prometheus'),
          metadata: z.strictObject({ serverAddress: z.url(), query: z.string(), threshold: z.string() }),
        }),
      )
      .min(1),
  }),
});

describe('deploy/k8s/corpus-chat.yaml', () => {
  const models: Record<string, new (data: never) => { validate(): void }> = {
    Deployment,
    Service,
    ConfigMap,
  };

  it('every object passes the Kubernetes schema of its kind (KEDA ScaledObject: its fields)', () => {
    expect(docs.map((d) => d.kind).sort()).toEqual([
      'ConfigMap',
      'Deployment',
      'Deployment',
      'Deployment',
      'Deployment',
      'ScaledObject',
      'Service',
      'Service',
    ]);
    for (const doc of docs) {
      if (doc.kind === 'ScaledObject') scaledObject.parse(doc);
      else new models[doc.kind](doc as never).validate();
    }
  });

  it('services select a deployment, and probes use a declared container port', () => {
    for (const svc of ofKind('Service')) {
      const target = ofKind('Deployment').find((d) =>
        Object.entries(svc.spec.selector).every(([k, v]) => d.spec.template.metadata.labels[k] === v),
      );
      expect({ service: svc.metadata.name, selects: Boolean(target) }).toEqual({
        service: svc.metadata.name,
        selects: true,
      });
    }
    for (const d of ofKind('Deployment'))
      for (const c of d.spec.template.spec.containers) {
        const ports = (c.ports ?? []).map((p: { name: string }) => p.name);
        for (const probe of [c.readinessProbe, c.livenessProbe])
          expect({
            container: `${d.metadata.name}/${c.name}`,
            declared: ports.includes(probe.httpGet.port),
          }).toEqual({
            container: `${d.metadata.name}/${c.name}`,
            declared: true,
          });
      }
  });

  it("server pods run as the image's non-root user and cannot gain privileges", () => {
    const servers = ofKind('Deployment').filter(
      (d) => d.spec.template.spec.containers[0].image === 'corpus-chat-server:latest',
    );
    expect(servers).toHaveLength(3);
    for (const d of servers) {
      // The Dockerfile's `USER node` (uid 1000): runAsNonRoot cannot verify a user given by name.
      expect(d.spec.template.spec.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000 });
      for (const c of d.spec.template.spec.containers)
        expect(c.securityContext).toEqual({
          allowPrivilegeEscalation: false,
          capabilities: { drop: ['ALL'] },
        });
    }
  });

  it('workers wait long enough on SIGTERM for their running turns, and scale on a metric that exists', () => {
    for (const d of ofKind('Deployment').filter((d) => d.metadata.name.endsWith('-worker'))) {
      const env = Object.fromEntries(
        d.spec.template.spec.containers[0].env.map((e: { name: string; value: string }) => [e.name, e.value]),
      );
      // SHUTDOWN_TIMEOUT_MS, then the worker's 15 s exit guard (exitIfShutdownHangs).
      expect(d.spec.template.spec.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(
        Number(env['SHUTDOWN_TIMEOUT_MS']) / 1000 + 15,
      );
    }
    const [scaler] = ofKind('ScaledObject');
    expect(ofKind('Deployment').map((d) => d.metadata.name)).toContain(scaler.spec.scaleTargetRef.name);
    const metric = /([a-z_]+)\{/.exec(scaler.spec.triggers[0].metadata.query)![1];
    expect(metricsRegistry.getSingleMetric(metric)).toBeDefined();
  });
});

describe('docker-compose.yml', () => {
  const compose = parseAllDocuments(fs.readFileSync(path.join(root, 'docker-compose.yml'), 'utf8'))[0].toJS();

  // Docker publishes ports past the host's firewall: Postgres (a known password) and Redis (none)
  // on every interface let anyone on the network make themselves admin or queue jobs.
  it('publishes only the web front beyond this host', () => {
    const published = Object.entries(compose.services as Record<string, { ports?: string[] }>).flatMap(
      ([service, s]) => (s.ports ?? []).map((p) => ({ service, localOnly: p.startsWith('127.0.0.1:') })),
    );
    expect(published.filter((p) => p.service !== 'web')).toEqual([
      { service: 'postgres', localOnly: true },
      { service: 'redis', localOnly: true },
    ]);
  });
});
