/** Command ids, mirroring `contributes.commands` in package.json (a unit test checks they agree). */
export const Commands = {
  query: 'applicationQuery.query',
  querySelection: 'applicationQuery.querySelection',
  queryFile: 'applicationQuery.queryFile',
  setApiKey: 'applicationQuery.setApiKey',
  removeApiKey: 'applicationQuery.removeApiKey',
  addApplication: 'applicationQuery.addApplication',
  selectApplication: 'applicationQuery.selectApplication',
  stop: 'applicationQuery.stop',
  get: 'applicationQuery.get',
  manageChatModels: 'applicationQuery.manageChatModels',
  showExchange: 'applicationQuery.showExchange',
  replay: 'applicationQuery.replay',
  replayWith: 'applicationQuery.replayWith',
  copyAsCurl: 'applicationQuery.copyAsCurl',
  clearHistory: 'applicationQuery.clearHistory',
  diagnose: 'applicationQuery.diagnose',
} as const;
