module.exports = { preset: '@convo/jest-preset', testTimeout: 120_000 };
