// client_test.mjs: OpenAI's own Node client (npm openai, v4) against poem_server,
// on every route and field such a client uses. run.sh starts the server and
// runs this with its address: node client_test.mjs http://127.0.0.1:PORT/v1
// One line per check (ok / FAIL and why); exits 1 if any failed.
import OpenAI from "openai";

const client = new OpenAI({baseURL: process.argv[2], apiKey: "not-needed", maxRetries: 0});
const model = "tang-gpt";
const opening = "床前明月光";
const asked = {model, prompt: opening, max_tokens: 20, seed: 7};  // one poem, asked many ways
let failed = 0;

async function check(name, body) {
  try {
    await body();
    console.log(`ok   ${name}`);
  } catch (error) {
    failed += 1;
    console.log(`FAIL ${name}: ${error.message}`);
  }
}
function expect(holds, what) {
  if (!holds) throw new Error(what);
}
const characters = (text) => Array.from(text);  // one entry per character, as the server counts

await check("models.list() lists tang-gpt", async () => {
  const ids = [];
  for await (const m of client.models.list()) ids.push(m.id);
  expect(ids.length === 1 && ids[0] === model, `listed ${JSON.stringify(ids)}`);
});

let plain = "";
await check("completions.create(): text, finish_reason and usage", async () => {
  const r = await client.completions.create(asked);
  plain = r.choices[0].text;
  expect(characters(plain).length >= 8, `text ${JSON.stringify(plain)}`);
  expect(["stop", "length"].includes(r.choices[0].finish_reason), r.choices[0].finish_reason);
  expect(r.usage.completion_tokens === characters(plain).length, JSON.stringify(r.usage));
});

await check("a stream of the same request writes the same text, then the usage", async () => {
  const stream = await client.completions.create(
      {...asked, stream: true, stream_options: {include_usage: true}});
  let text = "", usage = null;
  for await (const chunk of stream) {
    if (chunk.choices.length > 0) text += chunk.choices[0].text;
    if (chunk.usage) usage = chunk.usage;
  }
  expect(text === plain, `streamed ${JSON.stringify(text)}, plain ${JSON.stringify(plain)}`);
  expect(usage && usage.completion_tokens > 0, `usage ${JSON.stringify(usage)}`);
});

await check("logprobs: 3 gives each character and three alternatives", async () => {
  const r = await client.completions.create({...asked, logprobs: 3});
  const lp = r.choices[0].logprobs;
  expect(lp.tokens.join("") === plain, `tokens ${JSON.stringify(lp.tokens)}`);
  expect(lp.token_logprobs.every((x) => x <= 0), "a log-probability above 0");
  expect(lp.top_logprobs.every((top) => Object.keys(top).length === 3), "not 3 alternatives");
  expect(lp.text_offset[1] === 1, `text_offset ${JSON.stringify(lp.text_offset)}`);
});

await check("stop ends the text before the stop string", async () => {
  const stop = characters(plain).slice(5, 7).join("");
  const r = await client.completions.create({...asked, stop: [stop]});
  expect(r.choices[0].text === plain.slice(0, plain.indexOf(stop)),
         `${JSON.stringify(r.choices[0].text)} for stop ${JSON.stringify(stop)}`);
  expect(r.choices[0].finish_reason === "stop", r.choices[0].finish_reason);
});

await check("echo puts the prompt first", async () => {
  const r = await client.completions.create({...asked, echo: true});
  expect(r.choices[0].text === opening + plain, JSON.stringify(r.choices[0].text));
});

await check("n: 2 gives two indexed choices, the first the same poem", async () => {
  const r = await client.completions.create({...asked, n: 2});
  expect(r.choices.length === 2 && r.choices[1].index === 1, `${r.choices.length} choices`);
  expect(r.choices[0].text === plain, JSON.stringify(r.choices[0].text));
  expect(r.choices[1].text !== plain, "the second choice has its own seed");
});

const messages = [{role: "system", content: "you are a Tang poet"}, {role: "user", content: opening}];
await check("chat.completions.create(): the last user message is the opening", async () => {
  const r = await client.chat.completions.create(
      {model, messages, max_tokens: 20, seed: 7, logprobs: true, top_logprobs: 2});
  const choice = r.choices[0];
  expect(choice.message.role === "assistant", choice.message.role);
  expect(choice.message.content === plain, JSON.stringify(choice.message.content));
  expect(choice.logprobs.content.length === characters(plain).length, "logprobs per character");
  expect(choice.logprobs.content[0].top_logprobs.length === 2, "two alternatives");
});

await check("a chat stream: the role, then the same text in deltas", async () => {
  const stream = await client.chat.completions.create(
      {model, messages, max_tokens: 20, seed: 7, stream: true});
  let text = "", role = null;
  for await (const chunk of stream) {
    const delta = chunk.choices[0]?.delta ?? {};
    role = role ?? delta.role ?? null;
    text += delta.content ?? "";
  }
  expect(role === "assistant", `role ${role}`);
  expect(text === plain, JSON.stringify(text));
});

await check("a bad field is the client's BadRequestError, naming it", async () => {
  try {
    await client.completions.create({...asked, temperature: 11});
    throw new Error("no error");
  } catch (error) {
    expect(error instanceof OpenAI.BadRequestError, `${error.constructor.name}: ${error.message}`);
    expect(error.param === "temperature", `param ${error.param}`);
  }
});

await check("another model is the client's NotFoundError, code model_not_found", async () => {
  try {
    await client.completions.create({...asked, model: "gpt-4"});
    throw new Error("no error");
  } catch (error) {
    expect(error instanceof OpenAI.NotFoundError, `${error.constructor.name}: ${error.message}`);
    expect(error.code === "model_not_found", `code ${error.code}`);
  }
});

console.log(failed === 0 ? "all checks passed" : `${failed} check(s) failed`);
process.exit(failed === 0 ? 0 : 1);
