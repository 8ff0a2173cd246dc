  // -------------------
  // The official DeepSeek API serves V4 flash as `deepseek-flash` (the
  // `deepseek-v4.1-flash` spelling is DashScope's); both V4 names carry the
  // 1M window, so flash must not fall through to the 128K family rule.
