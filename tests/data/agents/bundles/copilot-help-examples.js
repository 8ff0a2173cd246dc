
  Use "openai" type for any OpenAI-compatible endpoint, including Ollama, vLLM,
  and Foundry Local. Use "responses" wire API for GPT-5 series models.

Examples:

  # Ollama (local, no API key required)
  $ COPILOT_PROVIDER_BASE_URL=http://localhost:11434/v1 \\
    COPILOT_MODEL=deepseek-coder-v2:16b \\
    copilot

  # Custom OpenAI-compatible endpoint
  $ COPILOT_PROVIDER_BASE_URL=https://my-api.example.com/v1 \\
