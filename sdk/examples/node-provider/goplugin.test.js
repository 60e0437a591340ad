'use strict';
// Unit tests of goplugin.js's pure parts: `node --test` in this directory
// (e2e/nodeplugin_test.go runs them). The rest is tested end to end
// through the real kernel.

const test = require('node:test');
const assert = require('node:assert');
const path = require('node:path');
const protobuf = require('protobufjs');
const grpc = require('@grpc/grpc-js');
const { negotiate, toStatus, PluginError } = require('./goplugin.js');

test('negotiate picks the version as go-plugin does', () => {
  const cases = [
    // offered by the kernel, spoken by the plugin, chosen
    ['1', [1], 1],
    ['1,2', [1, 2], 2], // the highest in common
    ['2,1', [1, 2], 2],
    ['1', [1, 2], 1],
    ['3', [1, 2], 1], // none in common: the plugin's lowest, for the kernel to refuse
    ['', [2, 1], 1], // no list: the plugin's lowest
    [undefined, [1], 1],
    ['x,2', [1, 2], 2], // a bad entry is skipped
  ];
  for (const [offered, ours, want] of cases) {
    assert.strictEqual(negotiate(offered, ours), want, `offered ${offered}, ours ${ours}`);
  }
});

test('toStatus carries the error class in an ErrorInfo of the SDK domain', () => {
  const root = protobuf.loadSync(path.join(__dirname, 'proto', 'google_rpc.proto'));
  const Status = root.lookupType('google.rpc.Status');
  const ErrorInfo = root.lookupType('google.rpc.ErrorInfo');
  const cases = [
    [new PluginError('rate_limited', 'slow down', { retryAfterMs: 1500 }), grpc.status.RESOURCE_EXHAUSTED, 'rate_limited', { retry_after_ms: '1500' }],
    [new PluginError('not_found', 'no such model'), grpc.status.NOT_FOUND, 'not_found', {}],
    [new Error('boom'), grpc.status.UNKNOWN, 'unknown', {}],
  ];
  for (const [err, code, reason, metadata] of cases) {
    const st = toStatus(err);
    assert.strictEqual(st.code, code);
    assert.strictEqual(st.details, err.message);
    const [bin] = st.metadata.get('grpc-status-details-bin');
    const status = Status.decode(bin);
    assert.strictEqual(status.code, code);
    assert.strictEqual(status.message, err.message);
    assert.strictEqual(status.details.length, 1);
    assert.strictEqual(status.details[0].type_url, 'type.googleapis.com/google.rpc.ErrorInfo');
    const info = ErrorInfo.toObject(ErrorInfo.decode(status.details[0].value), { defaults: true });
    assert.deepStrictEqual(info, { reason, domain: 'coyote.sdk', metadata });
  }
});

test('PluginError refuses a class the SDK does not know', () => {
  assert.throws(() => new PluginError('teapot', 'x'), TypeError);
});
