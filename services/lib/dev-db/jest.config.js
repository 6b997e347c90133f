module.exports = { preset: '@convo/jest-preset' };
