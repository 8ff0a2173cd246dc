    "gemini-3-flash-base": {
      extends: "base",
      modelConfig: {
        model: "gemini-3-flash-preview"
      }
    },
    "gemini-3.5-flash-base": {
      extends: "base",
      modelConfig: {
        model: "gemini-3.5-flash"
      }
    },
    classifier: {
      extends: "base",
      modelConfig: {
        model: "flash-lite",
