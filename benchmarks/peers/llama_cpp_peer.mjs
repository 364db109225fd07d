// llama_cpp_peer.mjs: the llama.cpp peer. Our exported GGUF files (lessons/08_many_poems/
// export_gguf) in llama.cpp, through the npm package node-llama-cpp and its prebuilt CPU
// binary, timed on the work of our own rows:
//
//   node benchmarks/peers/llama_cpp_peer.mjs --model ours/f32=build/bench/llama_cpp/tang-f32.gguf \
//       [--model big/f32=FILE ...] [--texts 1,16] [--chars 120] [--repeats 1] --out FILE.json
//
// scripts/run_benchmarks.sh runs it in rounds, each round beside our matching rows
// (docs/benchmarks.md, "The llama.cpp peer"). It never compiles or downloads anything; when
// Node cannot load the package it prints one line saying so and exits 0, as torch_peer.py
// does without torch.
//
// For each model file and each number of texts B (--texts), one row: B texts, each in its
// own sequence of one llama.cpp context (node-llama-cpp's "sequences"), write --chars
// characters after a newline. Each step every text feeds its last character and draws the
// next at T 0.8, top-k 20 (our rows' settings; a fixed seed per text), with llama.cpp's KV
// cache; the B texts' steps go to llama.cpp together, one decode call of B tokens a step
// (node-llama-cpp batches the evaluations that wait together; each row counts its decode
// calls). One thread. The clock runs over the whole loop, as a caller sees it. llama.cpp's
// own counter (llama_perf_context: the time inside its decode calls) is read around the
// same loop, so each row also says how much of the call was llama.cpp's decoding; the rest
// is the draw, the copies of the logits and node-llama-cpp's bookkeeping between the calls.
//
// Writes JSON: the settings, llama.cpp's release, its CPU kernels' features, and per row
// every repetition's call and decode milliseconds and decode calls, with their medians.
import {readFileSync, writeFileSync} from "node:fs";
import {dirname, join} from "node:path";
import {fileURLToPath} from "node:url";

const kRepository = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const kSettings = {temperature: 0.8, topK: 20};  // writing_settings() with default flags
const kWarmupSteps = 8;  // untimed steps before each row: weights paged in, buffers allocated

// --model NAME=FILE (repeatable), --texts 1,16, --chars, --repeats, --out, --package DIR.
function parseArguments(argv) {
  const options = {models: [], texts: [1, 16], chars: 120, repeats: 1, out: "",
                   packageDir: join(kRepository, "tests", "llama_cpp", "node_modules")};
  for (let i = 0; i < argv.length; ++i) {
    const flag = argv[i], value = argv[i + 1];
    if (value === undefined) throw new Error(`${flag} needs a value`);
    ++i;
    if (flag === "--model") {
      const at = value.indexOf("=");
      if (at <= 0) throw new Error(`--model ${value}: write NAME=FILE`);
      options.models.push({name: value.slice(0, at), file: value.slice(at + 1)});
    } else if (flag === "--texts") {
      options.texts = value.split(",").map(Number);
    } else if (flag === "--chars") {
      options.chars = Number(value);
    } else if (flag === "--repeats") {
      options.repeats = Number(value);
    } else if (flag === "--out") {
      options.out = value;
    } else if (flag === "--package") {
      options.packageDir = value;
    } else {
      throw new Error(`unknown argument ${flag}`);
    }
  }
  if (!options.out || options.models.length === 0) throw new Error("needs --model and --out");
  const counts = [...options.texts, options.chars, options.repeats];
  if (!counts.every((n) => Number.isInteger(n) && n >= 1)) throw new Error("counts must be >= 1");
  return options;
}

// node-llama-cpp from the package folder, or null (and why) when it is not there.
async function loadPackage(packageDir) {
  try {
    const entry = join(packageDir, "node-llama-cpp", "dist", "index.js");
    return {module: await import(entry)};
  } catch (error) {
    return {why: error.code === "ERR_MODULE_NOT_FOUND" ? "node-llama-cpp is not installed" :
                 String(error.message).split("\n")[0]};
  }
}

// llama.cpp's own counters as it prints them (llama_perf_context_print): milliseconds and
// tokens inside its decode calls, prompt (several tokens a call) and one-token calls added.
// It prints a count of 0 as 1 (with 0.00 ms), so a count whose time is 0 counts nothing.
function parseCounters(text) {
  const prompt = /prompt eval time =\s*([\d.]+) ms \/\s*(\d+) tokens/.exec(text);
  const single = /(?<!prompt )eval time =\s*([\d.]+) ms \/\s*(\d+) runs/.exec(text);
  if (!prompt || !single) return null;
  const tokens = (match) => Number(match[1]) > 0 ? Number(match[2]) : 0;
  return {ms: Number(prompt[1]) + Number(single[1]), tokens: tokens(prompt) + tokens(single)};
}

// Reads the counters through the log: printTimings writes them at log level info.
async function readCounters(context, log) {
  log.length = 0;
  await context.printTimings();
  return parseCounters(log.join(""));
}

// The decode time and tokens of one loop from the counters before and after it. llama.cpp's
// counters run on from the context's start, or start again after each print, depending on
// the release: when `after` holds fewer tokens than the loop fed on top of `before`, they
// started again at the print before the loop.
function counted(before, after, fed) {
  if (!before || !after) return {ms: NaN, tokens: NaN};
  if (after.tokens >= before.tokens + fed) {
    return {ms: after.ms - before.ms, tokens: after.tokens - before.tokens};
  }
  return after;
}

// `steps` steps of every text in lock-step from a newline: each text feeds its last
// character and draws the next. The B evaluations are queued in the same turn of Node's
// event loop, so node-llama-cpp sends them to llama.cpp as one batch, one decode call a
// step (each row counts its calls). node-llama-cpp's own generation loop
// (sequence.evaluate) keeps one sampler per text, but its texts' draws end at different
// moments and a step went out in several smaller batches; controlledEvaluate makes a
// sampler for each call, which the row's time includes.
async function writeTogether(sequences, newline, steps) {
  let last = sequences.map(() => newline);
  for (let step = 0; step < steps; ++step) {
    const outputs = await Promise.all(sequences.map((sequence, i) => sequence.controlledEvaluate(
        [[last[i], {generateNext: {token: true, options: {...kSettings, seed: i + 1}}}]])));
    last = outputs.map((output) => output[0].next.token);
  }
}

// Counts the context's decode calls, to show that each step of B texts was one call: a
// wrapper around node-llama-cpp's internal binding (context._ctx.decodeBatch) that counts
// and passes on. NaN where a later release has no such method.
function countDecodeCalls(context) {
  const calls = {count: 0};
  const binding = context._ctx;
  const decode = binding?.decodeBatch?.bind(binding);
  if (decode) {  // its prototype's method is read-only: an own property of the object instead
    Object.defineProperty(binding, "decodeBatch", {value: (...args) => {
      ++calls.count;
      return decode(...args);
    }});
  } else {
    calls.count = NaN;
  }
  return calls;
}

// Empties every sequence's cache, so that the next loop starts again at position 0.
async function clearAll(sequences) {
  for (const sequence of sequences) await sequence.clearHistory();
}

// One row: `texts` texts writing `chars` characters, `repeats` times after a warm-up.
async function timeRow(model, texts, chars, repeats, log) {
  const context = await model.createContext({contextSize: 128, threads: 1, sequences: texts,
                                             performanceTracking: true});
  const calls = countDecodeCalls(context);
  const sequences = Array.from({length: texts}, () => context.getSequence());
  const newline = model.tokenize("\n");
  if (newline.length !== 1) throw new Error("the file's tokenizer does not give \\n one id");
  await writeTogether(sequences, newline[0], Math.min(kWarmupSteps, chars));
  const runs = [];
  for (let r = 0; r < repeats; ++r) {
    await clearAll(sequences);
    const before = await readCounters(context, log);
    const callsBefore = calls.count;
    const start = performance.now();
    await writeTogether(sequences, newline[0], chars);
    const callMs = performance.now() - start;
    const decodeCalls = calls.count - callsBefore;
    const decode = counted(before, await readCounters(context, log), texts * chars);
    runs.push({call_ms: callMs, decode_ms: decode.ms, decoded_tokens: decode.tokens,
               decode_calls: decodeCalls});
  }
  const row = {texts, chars, threads: context.currentThreads, context_size: context.contextSize,
               flash_attention: context.flashAttention, runs};
  await context.dispose();
  return row;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

// The row's medians: the whole call and llama.cpp's decoding, per character and per second.
function summarise(row) {
  const callMs = median(row.runs.map((r) => r.call_ms));
  const decodeMs = median(row.runs.map((r) => r.decode_ms));
  const characters = row.texts * row.chars;
  return {...row, call_ms: callMs, decode_ms: decodeMs,
          decode_calls: median(row.runs.map((r) => r.decode_calls)),
          chars_per_s: 1e3 * characters / callMs,
          us_per_char: 1e3 * callMs / characters, decode_share: decodeMs / callMs};
}

async function main() {
  const options = parseArguments(process.argv.slice(2));
  const loaded = await loadPackage(options.packageDir);
  if (!loaded.module) {
    console.log(`llama_cpp_peer: skipped, ${loaded.why} (scripts/install_deps.sh --client)`);
    return;
  }
  const {getLlama, LlamaLogLevel} = loaded.module;
  const log = [];
  const llama = await getLlama({gpu: false, build: "never", usePrebuiltBinaries: true,
                                skipDownload: true, logLevel: LlamaLogLevel.info,
                                logger: (level, message) => log.push(message)});
  const result = {
    node_llama_cpp: JSON.parse(readFileSync(join(options.packageDir, "node-llama-cpp",
                                                 "package.json"), "utf8")).version,
    llama_cpp_release: llama.llamaCppRelease.release,
    // what its CPU kernels were built to use: "SSE3 = 1 | ... | AVX2 = 1 | ..."
    cpu_features: llama.systemInfo.replace(/^\s*CPU\s*:\s*/, "").replace(/[\s|]+$/, ""),
    settings: {...kSettings, threads: 1, chars: options.chars, repeats: options.repeats,
               kv_cache: "llama.cpp's default (F16)"},
    rows: [],
  };
  for (const {name, file} of options.models) {
    const model = await llama.loadModel({modelPath: file, gpuLayers: 0});
    for (const texts of options.texts) {
      const row = summarise(await timeRow(model, texts, options.chars, options.repeats, log));
      row.name = `llama_cpp/${name}/B:${texts}`;
      row.file = file;
      result.rows.push(row);
      console.log(`${row.name}: ${row.chars_per_s.toFixed(1)} chars/s, ` +
                  `${row.us_per_char.toFixed(1)} us a character, llama.cpp's decoding ` +
                  `${(100 * row.decode_share).toFixed(0)}% of the call`);
    }
    await model.dispose();
  }
  await llama.dispose();
  writeFileSync(options.out, JSON.stringify(result, null, 1) + "\n");
}

await main();
