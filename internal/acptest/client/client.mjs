// An Agent Client Protocol client built on the protocol's official
// library, for coyote's end-to-end tests: it starts `coyote --acp-server`
// (the command line is this script's arguments, the environment its own)
// and plays a scenario an editor would, then prints a JSON report of what
// it saw on stdout for the Go test to check.
//
// The scenario (ACP_SCENARIO, a JSON object):
//   cwd          the session's working directory
//   prompts      the prompts of the session, in order; a prompt is
//                {text, cancelAfterFirstChunk?: true}
//   permission   the option to pick when asked ("allow-once", …)
//   load         a session id to load (session/load) before prompting;
//                without it a new session is made
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

const scenario = JSON.parse(process.env.ACP_SCENARIO ?? "{}");
const [cmd, ...args] = process.argv.slice(2);
const agent = spawn(cmd, args, { stdio: ["pipe", "pipe", "inherit"] });
const exited = new Promise((resolve) => agent.on("exit", (code, signal) => resolve({ code, signal })));

const report = { initialize: null, sessionId: null, permissions: [], turns: [], replayed: [] };
let turn = null; // the turn in progress: its updates
let onFirstChunk = null;

const app = acp
  .client({ name: "coyote-e2e" })
  .onRequest(acp.methods.client.session.requestPermission, async ({ params }) => {
    report.permissions.push({ sessionId: params.sessionId, toolCallId: params.toolCall.toolCallId,
      title: params.toolCall.title ?? null, options: params.options.map((o) => o.optionId) });
    if (turn) turn.events.push("permission");
    return { outcome: { outcome: "selected", optionId: scenario.permission ?? "allow-once" } };
  })
  .onNotification(acp.methods.client.session.update, async ({ params }) => {
    const u = params.update;
    if (!turn) {
      report.replayed.push({ kind: u.sessionUpdate, text: u.content?.text ?? null });
      return;
    }
    let ev = u.sessionUpdate;
    if (u.sessionUpdate === "agent_message_chunk") {
      turn.text += u.content.text;
      if (onFirstChunk) {
        const f = onFirstChunk;
        onFirstChunk = null;
        f();
      }
    } else if (u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update") {
      ev += ":" + (u.status ?? "");
      if (u.content?.[0]?.content?.text) turn.toolResults.push(u.content[0].content.text);
    } else if (u.sessionUpdate === "plan") {
      turn.plans.push(u.entries.map((e) => `${e.status}:${e.content}`));
    }
    if (turn.events[turn.events.length - 1] !== ev) turn.events.push(ev);
  });

const stream = acp.ndJsonStream(Writable.toWeb(agent.stdin), Readable.toWeb(agent.stdout));
try {
  await app.connectWith(stream, async (ctx) => {
    report.initialize = await ctx.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: {},
      clientInfo: { name: "coyote-e2e", version: "1" },
    });
    let sessionId;
    if (scenario.load) {
      await ctx.request(acp.methods.agent.session.load, { sessionId: scenario.load, cwd: scenario.cwd, mcpServers: [] });
      sessionId = scenario.load;
    } else {
      sessionId = (await ctx.request(acp.methods.agent.session.new, { cwd: scenario.cwd, mcpServers: [] })).sessionId;
    }
    report.sessionId = sessionId;
    for (const p of scenario.prompts ?? []) {
      turn = { text: "", events: [], plans: [], toolResults: [], stopReason: null };
      if (p.cancelAfterFirstChunk) {
        onFirstChunk = () => ctx.notify(acp.methods.agent.session.cancel, { sessionId });
      }
      const res = await ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: p.text }] });
      turn.stopReason = res.stopReason;
      report.turns.push(turn);
      turn = null;
    }
  });
} catch (err) {
  report.error = String(err?.message ?? err);
}
agent.stdin.end();
const { code, signal } = await exited;
report.exit = { code, signal };
process.stdout.write(JSON.stringify(report) + "\n");
