// evaluate.mjs: our exported model in llama.cpp (npm node-llama-cpp, its prebuilt CPU
// binary), for tests/llama_cpp_test.cpp. It never compiles or downloads anything.
//
//   node evaluate.mjs MODEL.gguf OPENINGS.json LOGITS.bin STEPS [CACHE]
//
// CACHE: f16 (llama.cpp's default: keys and values kept as fp16) or f32.
// OPENINGS.json: [{"text": "\n床前明月光", "ids": [0, ...], "poem": "\n床前...\n"}, ...],
// the ids ours. For each opening, one JSON line on stdout:
//   {"tokenized": llama.cpp's ids for the text, "tokenized_poem": for the poem,
//    "greedy": STEPS ids, "text": their text}
// The ids evaluated are ours (fed directly, whatever llama.cpp's tokenizer made of the
// text); each next id is the largest of llama.cpp's logits. LOGITS.bin receives, for
// each opening and step, the logits of every vocabulary entry (float32, little-endian):
// openings x STEPS rows of n_vocab.
import {readFileSync, writeFileSync} from "node:fs";
import {getLlama, LlamaLogLevel} from "node-llama-cpp";

const [modelPath, openingsPath, logitsPath, stepsText, cache = "f16"] = process.argv.slice(2);
const steps = Number(stepsText);
const openings = JSON.parse(readFileSync(openingsPath, "utf8"));

const llama = await getLlama({gpu: false, build: "never", usePrebuiltBinaries: true,
                              skipDownload: true, logLevel: LlamaLogLevel.error});
const model = await llama.loadModel({modelPath, gpuLayers: 0});
const cacheType = cache === "f32" ? "F32" : "F16";
const context = await model.createContext({contextSize: 128, threads: 1, sequences: 1,
                                           flashAttention: false,
                                           experimentalKvCacheKeyType: cacheType,
                                           experimentalKvCacheValueType: cacheType});
const sequence = context.getSequence();
const nVocab = model.tokens.count ?? model.fileInfo.metadata.tokenizer.ggml.tokens.length;
const rows = new Float32Array(openings.length * steps * nVocab);

// The logits of the position after `tokens` (appended to the sequence), as an array.
async function logitsAfter(tokens) {
  const input = tokens.map((t, i) => i + 1 < tokens.length ? t : [t, {generateNext: {logits: true}}]);
  const out = await sequence.controlledEvaluate(input);
  const row = new Float32Array(nVocab).fill(NaN);
  for (const [token, logit] of out[tokens.length - 1].next.logits) row[token] = logit;
  return row;
}

let at = 0;
for (const opening of openings) {
  await sequence.clearHistory();
  const greedy = [];
  let row = await logitsAfter(opening.ids);
  for (let step = 0; step < steps; ++step) {
    rows.set(row, at);
    at += nVocab;
    let best = 0;
    for (let t = 1; t < nVocab; ++t) if (row[t] > row[best]) best = t;
    greedy.push(best);
    if (step + 1 < steps) row = await logitsAfter([best]);
  }
  console.log(JSON.stringify({tokenized: model.tokenize(opening.text),
                              tokenized_poem: model.tokenize(opening.poem), greedy,
                              text: model.detokenize(greedy)}));
}
writeFileSync(logitsPath, Buffer.from(rows.buffer));
await context.dispose();
await model.dispose();
await llama.dispose();
