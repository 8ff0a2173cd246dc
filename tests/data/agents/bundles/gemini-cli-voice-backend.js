var TranscriptionFactory = class {
  static createProvider(voiceConfig, apiKey) {
    const backend = voiceConfig?.backend ?? "gemini-live";
    if (backend === "whisper") {
      const modelsDir = path114.join(homedir(), GEMINI_DIR, "whisper_models");
