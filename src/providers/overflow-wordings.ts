/**
 * How each server says "the request does not fit the context window": one row per wording, with the
 * server's real text and where it comes from. `isContextOverflowMessage` (errors.ts) tests the
 * patterns; a unit test checks every example against its own pattern, and the fake provider sends
 * them in each server's real body shape. Rate-limit wording ("tokens per min") must never match,
 * which is why no bare "too many tokens" pattern is here. Pure data.
 */

export interface OverflowWording {
  /** Who says it. */
  server: string;
  pattern: RegExp;
  /** The server's own text, as it reaches a client. */
  example: string;
  /** Where the wording is documented or produced. */
  source: string;
}

export const OVERFLOW_WORDINGS: readonly OverflowWording[] = [
  {
    server: 'Anthropic',
    pattern: /prompt is too long/i,
    example: 'prompt is too long: 210000 tokens > 200000 maximum',
    source: 'https://docs.claude.com/en/api/errors',
  },
  {
    server: 'Anthropic (older models)',
    pattern: /input length and `?max_tokens`? exceed context limit/i,
    example: 'input length and `max_tokens` exceed context limit: 197000 + 8192 > 200000',
    source: 'https://docs.claude.com/en/api/errors',
  },
  {
    server: 'Anthropic (stop reason echoed by gateways)',
    pattern: /model_context_window_exceeded/i,
    example: 'model_context_window_exceeded',
    source: 'https://docs.claude.com/en/api/handling-stop-reasons',
  },
  {
    server: 'OpenAI',
    pattern: /context_length_exceeded/i,
    example: 'context_length_exceeded',
    source: 'https://platform.openai.com/docs/guides/error-codes',
  },
  {
    server: 'OpenAI, vLLM, SGLang (total of input and output)',
    pattern: /maximum context length/i,
    example: "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens.",
    source: 'https://github.com/vllm-project/vllm/blob/main/vllm/entrypoints/openai/serving_engine.py',
  },
  {
    server: 'OpenAI, vLLM, Groq',
    pattern: /reduce the length of the (?:messages|input|prompt)/i,
    example: 'Please reduce the length of the messages or completion.',
    source: 'https://platform.openai.com/docs/guides/error-codes',
  },
  {
    server: 'Ollama and generic',
    pattern: /exceeds? (?:the )?(?:model'?s? )?context (?:window|length|size)/i,
    example: 'the input length exceeds the context length',
    source: 'https://github.com/ollama/ollama',
  },
  {
    server: 'llama.cpp server',
    pattern: /exceeds the available context size/i,
    example: 'the request exceeds the available context size, try increasing it',
    source: 'https://github.com/ggml-org/llama.cpp/blob/master/tools/server/README.md',
  },
  {
    server: 'LM Studio',
    pattern: /greater than the context length/i,
    example: 'The number of tokens to keep from the initial prompt is greater than the context length.',
    source: 'https://lmstudio.ai/docs/app/api',
  },
  {
    server: 'LM Studio',
    pattern: /context length of only \d+ tokens/i,
    example: 'However, the model is loaded with context length of only 7866 tokens, which is not enough.',
    source: 'https://lmstudio.ai/docs/app/api',
  },
  {
    server: 'LM Studio (MLX engine)',
    pattern: /context size has been exceeded/i,
    example: 'Context size has been exceeded.',
    source: 'https://lmstudio.ai/docs/app/api',
  },
  {
    server: 'vLLM ≥ 0.16',
    pattern: /context length is only \d+ tokens/i,
    example: "However, the model's context length is only 1024 tokens, resulting in a maximum input length of 1014 tokens.",
    source: 'https://github.com/vllm-project/vllm/blob/main/vllm/entrypoints/openai/serving_engine.py',
  },
  {
    server: 'vLLM',
    pattern: /is too long to fit into the model/i,
    example: 'The prompt (total length 25938) is too long to fit into the model (context length 8192).',
    source: 'https://github.com/vllm-project/vllm/blob/main/vllm/v1/engine/processor.py',
  },
  {
    server: 'SGLang, Together (the input alone)',
    pattern: /is longer than the model'?s? context length/i,
    example: "The input (10009 tokens) is longer than the model's context length (8192 tokens).",
    source: 'https://github.com/sgl-project/sglang/blob/main/python/sglang/srt/managers/tokenizer_manager.py',
  },
  {
    server: 'Text Generation Inference',
    pattern: /`?inputs`? tokens \+ `?max_new_tokens`? must be <=/i,
    example:
      'Input validation error: `inputs` tokens + `max_new_tokens` must be <= 4096. Given: 4000 `inputs` tokens and 1000 `max_new_tokens`',
    source: 'https://github.com/huggingface/text-generation-inference/blob/main/router/src/validation.rs',
  },
  {
    server: 'Text Generation Inference (the prompt alone)',
    pattern: /`?inputs`? must have less than \d+ tokens/i,
    example: 'Input validation error: `inputs` must have less than 4096 tokens. Given: 5210',
    source: 'https://github.com/huggingface/text-generation-inference/blob/main/router/src/validation.rs',
  },
  {
    server: 'Gemini (its OpenAI-compatible endpoint too)',
    pattern: /input token count \(\d+\) exceeds the maximum number of tokens allowed/i,
    example: 'The input token count (1196265) exceeds the maximum number of tokens allowed (1048575).',
    source: 'https://ai.google.dev/gemini-api/docs/troubleshooting',
  },
  {
    server: 'Mistral',
    pattern: /too large for model with \d+ maximum context length/i,
    example: 'Prompt contains 140000 tokens, too large for model with 131072 maximum context length',
    source: 'https://docs.mistral.ai/api/',
  },
  {
    server: 'xAI',
    pattern: /maximum prompt length is \d+ but the request contains \d+ tokens/i,
    example: "This model's maximum prompt length is 131072 but the request contains 537812 tokens.",
    source: 'https://docs.x.ai/docs/api-reference',
  },
  {
    server: 'OpenAI Responses-style gateways',
    pattern: /input tokens exceed the configured limit/i,
    example: 'Input tokens exceed the configured limit of 272000 tokens. Your messages resulted in 509178 tokens.',
    source: 'https://platform.openai.com/docs/guides/error-codes',
  },
  {
    server: 'MiniMax and others',
    pattern: /context window exceeds limit/i,
    example: 'invalid params, context window exceeds limit (2013)',
    source: 'https://platform.minimax.io/docs/api-reference/errorcode',
  },
  {
    server: 'Ollama (older) and generic',
    pattern: /prompt too long/i,
    example: 'prompt too long; exceeded max context length by 120 tokens',
    source: 'https://github.com/ollama/ollama',
  },
  {
    server: 'Bedrock-style wording through proxies',
    pattern: /input is too long for (?:the )?(?:requested )?model/i,
    example: 'Input is too long for requested model.',
    source: 'https://docs.aws.amazon.com/bedrock/latest/APIReference/CommonErrors.html',
  },
  {
    server: 'GitHub Copilot (VS Code language models)',
    pattern: /model_max_prompt_tokens_exceeded|prompt token count of \d+ exceeds the limit/i,
    example: 'prompt token count of 200000 exceeds the limit of 128000',
    source: 'https://code.visualstudio.com/api/extension-guides/ai/language-model',
  },
];
