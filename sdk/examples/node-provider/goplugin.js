'use strict';
// goplugin.js runs a Coyote plugin written in Node.js the way the Go SDK's
// sdk.Serve runs one written in Go. It is the part of this example another
// Node.js plugin would copy unchanged; sdk/README.md ("Plugins in other
// languages") describes each step for any language.
//
//   - Run by hand (without the kernel's magic cookie) it explains itself,
//     or prints its version with --version, and exits.
//   - It picks the plugin protocol version from PLUGIN_PROTOCOL_VERSIONS.
//   - It serves gRPC on a Unix socket in PLUGIN_UNIX_SOCKET_DIR: the
//     plugin's own services, Describe, the health service go-plugin
//     checks, and go-plugin's controller and stdio services.
//   - Then it prints the handshake line, the only thing it ever writes to
//     stdout.
//   - It logs hclog JSON lines to stderr, which the kernel copies into its
//     log.
//   - It exits when the kernel asks (GRPCController.Shutdown), when the
//     lifeline pipe on COYOTE_PLUGIN_LIFELINE_FD reads end-of-file (the
//     kernel is gone, however it ended), and on SIGTERM.
//   - Errors keep their class across the wire: throw a PluginError.

const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const crypto = require('node:crypto');
const timers = require('node:timers/promises');
const util = require('node:util');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');
const protobuf = require('protobufjs');

// The handshake values of the Go SDK (sdk/plugin.go). The cookie is no
// secret: it only tells a plugin that the kernel started it.
const MAGIC_COOKIE_KEY = 'COYOTE_PLUGIN_COOKIE';
const MAGIC_COOKIE_VALUE = '5a0d4c1e-coyote-plugin-1b7f';
// go-plugin's own protocol, the first field of the handshake line.
const CORE_PROTOCOL_VERSION = 1;
// Environment variables the kernel sets (sdk/plugin.go).
const ENV_LIFELINE_FD = 'COYOTE_PLUGIN_LIFELINE_FD';
const ENV_LOG_LEVEL = 'COYOTE_PLUGIN_LOG_LEVEL';

// The committed contracts, loaded at run time: sdk/proto of the Coyote
// repository. A plugin shipped on its own carries a copy of that directory
// and points COYOTE_PROTO_ROOT (below) at it. Loading the .proto files
// rather than code generated from them keeps one source of truth and no
// build step (no protoc); it costs some tens of milliseconds of start-up
// for protobuf.js to parse them.
const COYOTE_PROTO_ROOT = path.resolve(__dirname, '..', '..', 'proto');
// The protocols of go-plugin, gRPC health and Google's error model, which
// are not Coyote's own.
const LOCAL_PROTO_ROOT = path.join(__dirname, 'proto');

// Field names stay as in the .proto files (finish_reason, options_json),
// int64s become numbers, bytes Buffers, and a oneof names its set field.
const LOADER_OPTIONS = { keepCase: true, longs: Number, enums: String, bytes: Buffer, defaults: true, oneofs: true };

// The most a message may weigh in either direction, as in the Go SDK:
// conversations with images and large tool results fit.
const MAX_MESSAGE_SIZE = 256 << 20;

// loadContract loads one of Coyote's .proto files (a path under sdk/proto)
// and returns its gRPC package object.
function loadContract(file) {
  const def = protoLoader.loadSync(path.join(COYOTE_PROTO_ROOT, file), { ...LOADER_OPTIONS, includeDirs: [COYOTE_PROTO_ROOT] });
  return grpc.loadPackageDefinition(def);
}

function loadLocal(file) {
  const def = protoLoader.loadSync(path.join(LOCAL_PROTO_ROOT, file), { ...LOADER_OPTIONS, includeDirs: [LOCAL_PROTO_ROOT] });
  return grpc.loadPackageDefinition(def);
}

// ---- Logging ----------------------------------------------------------

const LEVELS = { trace: 0, debug: 1, info: 2, warn: 3, error: 4 };

// newLogger writes hclog's JSON lines to stderr. go-plugin in the kernel
// parses each line and logs it at its level under the plugin's name; it
// needs "@level", "@message" and, when present, "@timestamp" with exactly
// six fractional digits. Other keys become the record's fields.
function newLogger(name) {
  let min = LEVELS[(process.env[ENV_LOG_LEVEL] || '').toLowerCase()];
  if (min === undefined) min = LEVELS.info;
  const log = (level, message, fields) => {
    if (LEVELS[level] < min) return;
    const entry = { '@level': level, '@message': message, '@module': name, '@timestamp': timestamp() };
    for (const [k, v] of Object.entries(fields || {})) {
      entry[k] = v instanceof Error ? v.message : v;
    }
    process.stderr.write(JSON.stringify(entry) + '\n');
  };
  const logger = {};
  for (const level of Object.keys(LEVELS)) {
    logger[level] = (message, fields) => log(level, message, fields);
  }
  return logger;
}

// timestamp is hclog's "2006-01-02T15:04:05.000000Z07:00" in UTC.
function timestamp() {
  return new Date().toISOString().replace(/Z$/, '000Z');
}

// ---- Errors -------------------------------------------------------------

// The SDK's error classes (sdk/errors.go): wire name and gRPC status code.
const ERROR_CODES = {
  invalid_argument: grpc.status.INVALID_ARGUMENT,
  not_found: grpc.status.NOT_FOUND,
  unauthenticated: grpc.status.UNAUTHENTICATED,
  permission_denied: grpc.status.PERMISSION_DENIED,
  rate_limited: grpc.status.RESOURCE_EXHAUSTED,
  unavailable: grpc.status.UNAVAILABLE,
  unsupported: grpc.status.UNIMPLEMENTED,
  failed_precondition: grpc.status.FAILED_PRECONDITION,
  bad_response: grpc.status.DATA_LOSS,
  canceled: grpc.status.CANCELLED,
  deadline_exceeded: grpc.status.DEADLINE_EXCEEDED,
  unknown: grpc.status.UNKNOWN,
};

// The ErrorInfo domain that marks an error the plugin reported (as opposed
// to a broken connection), and the metadata key of Retry-After.
const ERROR_DOMAIN = 'coyote.sdk';
const RETRY_AFTER_KEY = 'retry_after_ms';

// PluginError is an error of one of the SDK's classes. The kernel matches
// it with errors.Is against the sentinel of the same name (for example
// "failed_precondition" is sdk.ErrFailedPrecondition). retryAfterMs is how
// long an upstream service asked to wait (HTTP Retry-After).
class PluginError extends Error {
  constructor(code, message, { retryAfterMs } = {}) {
    super(message);
    if (!(code in ERROR_CODES)) throw new TypeError(`unknown error code ${code}`);
    this.code = code;
    this.retryAfterMs = retryAfterMs;
  }
}

let errorTypes; // loaded on the first error

// toStatus turns what a handler threw into the gRPC status the Go SDK's
// ToStatus would send: its code and message, plus a google.rpc.Status in
// the grpc-status-details-bin trailer carrying an ErrorInfo with the
// class's name and the SDK's domain.
function toStatus(err) {
  const name = err instanceof PluginError ? err.code : 'unknown';
  const message = err instanceof Error ? err.message : String(err);
  if (!errorTypes) {
    const root = protobuf.loadSync(path.join(LOCAL_PROTO_ROOT, 'google_rpc.proto'));
    errorTypes = { Status: root.lookupType('google.rpc.Status'), ErrorInfo: root.lookupType('google.rpc.ErrorInfo') };
  }
  const info = { reason: name, domain: ERROR_DOMAIN, metadata: {} };
  if (err instanceof PluginError && err.retryAfterMs > 0) {
    info.metadata[RETRY_AFTER_KEY] = String(Math.round(err.retryAfterMs));
  }
  const code = ERROR_CODES[name];
  const status = errorTypes.Status.encode({
    code,
    message,
    details: [{
      type_url: 'type.googleapis.com/google.rpc.ErrorInfo',
      value: errorTypes.ErrorInfo.encode(info).finish(),
    }],
  }).finish();
  const metadata = new grpc.Metadata();
  metadata.set('grpc-status-details-bin', Buffer.from(status));
  return { code, details: message, metadata };
}

// unary adapts fn(request, call) (sync or async) to a grpc-js unary
// handler that reports errors as toStatus does.
function unary(fn) {
  return (call, callback) => {
    Promise.resolve()
      .then(() => fn(call.request, call))
      .then((resp) => callback(null, resp), (err) => callback(toStatus(err)));
  };
}

// serverStream adapts fn(request, send, signal) to a grpc-js server
// streaming handler. signal aborts when the kernel cancels the call; fn
// should stop then (send after it is harmless). The stream ends when fn's
// promise settles.
function serverStream(fn) {
  return (call) => {
    const ac = new AbortController();
    call.on('cancelled', () => ac.abort());
    const send = (msg) => {
      if (!ac.signal.aborted) call.write(msg);
    };
    Promise.resolve()
      .then(() => fn(call.request, send, ac.signal))
      .then(() => call.end(), (err) => {
        if (ac.signal.aborted) return; // nobody is listening any more
        call.emit('error', toStatus(err)); // grpc-js ends the call with this status
      });
  };
}

// sleep waits ms milliseconds, or rejects early when signal aborts.
function sleep(ms, signal) {
  return timers.setTimeout(ms, undefined, { signal });
}

// ---- Serving ------------------------------------------------------------

// negotiate picks the protocol version to speak, as go-plugin's server
// does: the highest version both sides know; without one in common, the
// lowest this plugin speaks (the kernel then names both versions in its
// error); without a list from the kernel, this plugin's lowest.
function negotiate(offered, ours) {
  const theirs = [];
  for (const s of (offered || '').split(',')) {
    if (s === '') continue;
    const v = Number(s);
    if (Number.isInteger(v)) theirs.push(v);
    else process.stderr.write(`server sent invalid plugin version ${JSON.stringify(s)}\n`);
  }
  const sorted = [...ours].sort((a, b) => b - a);
  for (const v of sorted) {
    if (theirs.includes(v)) return v;
  }
  return sorted[sorted.length - 1];
}

// runByHand explains the program to a user who started it directly,
// like the Go SDK does.
function runByHand(info, kinds, protocol) {
  const self = path.basename(process.argv[1] || 'this program');
  if (process.argv.slice(2).some((a) => a === '--version' || a === '-V' || a === 'version')) {
    process.stdout.write(`${info.name} ${info.version} (coyote ${kinds.join('+')} plugin, protocol ${protocol}, node ${process.version})\n`);
    return 0;
  }
  process.stderr.write(`${self} is a Coyote plugin (${info.name} ${info.version}, protocol ${protocol}). coyote starts it when it is needed;\n` +
    `run \`coyote plugins\` to see the plugins coyote finds, or \`${self} --version\`.\n`);
  return 1;
}

// fatal reports a failure to start as one plain line on stderr, which the
// kernel shows as the reason the plugin did not start, and exits.
function fatal(log, message, code = 1) {
  log.error(message);
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

// listenAddress picks where to serve, as go-plugin's server does: a fresh
// socket name in PLUGIN_UNIX_SOCKET_DIR (or the temp directory) on Unix,
// localhost TCP between PLUGIN_MIN_PORT and PLUGIN_MAX_PORT on Windows.
function listenAddress() {
  if (process.platform === 'win32') {
    return { network: 'tcp', ports: [Number(process.env.PLUGIN_MIN_PORT) || 0, Number(process.env.PLUGIN_MAX_PORT) || 0] };
  }
  const dir = process.env.PLUGIN_UNIX_SOCKET_DIR || os.tmpdir();
  return { network: 'unix', path: path.join(dir, `plugin${crypto.randomInt(1e9, 1e10)}`) };
}

function bind(server, target) {
  return new Promise((resolve, reject) => {
    server.bindAsync(target, grpc.ServerCredentials.createInsecure(), (err, port) => (err ? reject(err) : resolve(port)));
  });
}

// serve runs the plugin until the kernel is done with it, then exits.
//
// info is what Describe reports: { name, version, description, kinds,
// capabilities }. protocols lists the Coyote plugin protocol versions the
// plugin speaks ([1] today). register(server, log) adds the plugin's own
// services to the gRPC server.
async function serve(info, { protocols = [1], register }) {
  if (process.env[MAGIC_COOKIE_KEY] !== MAGIC_COOKIE_VALUE) {
    process.exit(runByHand(info, info.kinds, Math.max(...protocols)));
  }
  const protocol = negotiate(process.env.PLUGIN_PROTOCOL_VERSIONS, protocols);
  const log = newLogger(info.name);
  // stdout carries the handshake line and nothing else: what a library
  // prints with console goes to the log instead.
  const format = (args) => args.map((a) => (typeof a === 'string' ? a : util.inspect(a))).join(' ');
  console.log = console.info = (...a) => log.info(format(a));
  console.debug = (...a) => log.debug(format(a));
  console.warn = (...a) => log.warn(format(a));
  console.error = (...a) => log.error(format(a));
  process.on('uncaughtException', (err) => {
    // "panic: " is the line the kernel picks from stderr to explain a crash.
    log.error('uncaught exception', { error: err.stack || String(err) });
    process.stderr.write(`panic: ${err.message || err}\n${err.stack || ''}\n`);
    process.exit(2);
  });
  if (process.env.PLUGIN_CLIENT_CERT) {
    fatal(log, `${info.name}: the kernel asked for go-plugin's automatic mTLS, which this plugin does not support`);
  }
  if (process.env.PLUGIN_UNIX_SOCKET_GROUP) {
    fatal(log, `${info.name}: PLUGIN_UNIX_SOCKET_GROUP is set, which this plugin does not support`);
  }

  const server = new grpc.Server({
    'grpc.max_receive_message_length': MAX_MESSAGE_SIZE,
    'grpc.max_send_message_length': MAX_MESSAGE_SIZE,
  });
  const addr = listenAddress();
  let exiting = false;
  // exit stops serving and ends the process. alone says the kernel is gone
  // (lifeline, SIGTERM): then nobody else removes the socket directory the
  // kernel made for this process.
  const exit = (why, alone) => {
    if (exiting) return;
    exiting = true;
    log.debug(why);
    server.forceShutdown();
    if (addr.network === 'unix') {
      fs.rmSync(addr.path, { force: true });
      const dir = process.env.PLUGIN_UNIX_SOCKET_DIR;
      if (alone && dir && path.basename(dir).startsWith('plugin-dir')) {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    }
    process.exit(0);
  };

  // Describe: who the plugin is (coyotecli.sdk.v1.Plugin).
  const sdkv1 = loadContract('coyotecli/sdk/v1/plugin.proto').coyotecli.sdk.v1;
  const description = {
    name: info.name,
    kinds: info.kinds,
    version: info.version,
    // sdk_version names the Go SDK a plugin was built with; none here.
    sdk_version: '',
    protocol_version: protocol,
    capabilities: info.capabilities || [],
    description: info.description || '',
  };
  server.addService(sdkv1.Plugin.service, { Describe: unary(() => description) });

  // What go-plugin itself calls.
  const health = loadLocal('grpc_health_v1.proto').grpc.health.v1;
  server.addService(health.Health.service, {
    Check: (call, callback) => {
      const s = call.request.service;
      if (s === '' || s === 'plugin') callback(null, { status: 'SERVING' });
      else callback({ code: grpc.status.NOT_FOUND, details: 'unknown service' });
    },
  });
  const gp = loadLocal('go_plugin.proto').plugin;
  server.addService(gp.GRPCController.service, {
    Shutdown: (call, callback) => {
      callback(null, {});
      setImmediate(() => exit('the kernel asked to shut down', false));
    },
  });
  server.addService(gp.GRPCStdio.service, {
    // Held open until the kernel goes; nothing is ever sent.
    StreamStdio: () => {},
  });

  register(server, log);

  let target;
  if (addr.network === 'unix') {
    target = `unix:${addr.path}`;
    await bind(server, target).catch((err) => fatal(log, `${info.name}: listen on ${addr.path}: ${err.message}`));
  } else {
    const [lo, hi] = addr.ports;
    for (let port = lo; port <= hi && !target; port++) {
      const got = await bind(server, `127.0.0.1:${port}`).catch(() => 0);
      if (got) target = `127.0.0.1:${got}`;
    }
    if (!target) fatal(log, `${info.name}: could not bind a localhost TCP port`);
  }
  const where = addr.network === 'unix' ? addr.path : target;
  log.debug('plugin address', { network: addr.network, address: where });

  watchLifeline(log, () => exit('the kernel has gone; exiting', true));
  process.on('SIGTERM', () => exit('terminated; exiting', true));
  // Ctrl+C at a terminal reaches the whole process group; the kernel
  // decides when its plugins stop.
  process.on('SIGINT', () => log.trace('plugin received interrupt signal, ignoring'));

  // The handshake: CORE|APP|NETWORK|ADDRESS|PROTOCOL|SERVER-CERT (empty).
  process.stdout.write(`${CORE_PROTOCOL_VERSION}|${protocol}|${addr.network}|${where}|grpc|\n`);
}

// watchLifeline calls gone when the kernel's end of the lifeline pipe
// closes: read end-of-file, whatever way the kernel ended.
function watchLifeline(log, gone) {
  const s = process.env[ENV_LIFELINE_FD];
  if (!s) return;
  const fd = Number(s);
  if (!Number.isInteger(fd) || fd < 3) {
    log.warn('ignoring bad lifeline descriptor', { value: s });
    return;
  }
  let pipe;
  try {
    pipe = new net.Socket({ fd, readable: true, writable: false });
  } catch (err) {
    log.warn('cannot watch the lifeline', { error: err });
    return;
  }
  pipe.on('data', () => {});
  pipe.on('end', gone);
  pipe.on('close', gone);
  pipe.on('error', gone);
}

module.exports = { serve, loadContract, unary, serverStream, sleep, PluginError, negotiate, toStatus };
