module.exports = { preset: '@convo/jest-preset', testTimeout: 60_000 };
