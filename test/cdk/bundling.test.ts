import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, test } from '@jest/globals';
import { resources, synthesize } from './synth.ts';

const outdir = mkdtempSync(path.join(tmpdir(), 'lead-intake-cdk-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

describe('Bundling the lead functions', () => {
  test('builds each handler with the local esbuild into a non-empty ESM index.mjs with its source map', () => {
    const docker = process.env.CDK_DOCKER;
    process.env.CDK_DOCKER = 'false'; // any attempt to bundle in Docker fails this test
    try {
      const { app, template } = synthesize({ bundle: true, outdir });
      app.synth();
      const functions = Object.values(resources(template, 'AWS::Lambda::Function'));
      expect(functions).toHaveLength(4);
      const hashes = new Set(functions.map((fn) => String(fn.Properties!.Code.S3Key).replace(/\.zip$/, '')));
      expect(hashes.size).toBe(4);
      for (const hash of hashes) {
        expect(statSync(path.join(outdir, `asset.${hash}`, 'index.mjs')).size).toBeGreaterThan(1_000);
        expect(statSync(path.join(outdir, `asset.${hash}`, 'index.mjs.map')).size).toBeGreaterThan(0);
      }
    } finally {
      if (docker === undefined) delete process.env.CDK_DOCKER;
      else process.env.CDK_DOCKER = docker;
    }
  }, 60_000);
});
