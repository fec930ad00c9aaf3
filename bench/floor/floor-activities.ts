// The floor workflows' activities: nothing, or one second of waiting.
export const floorActivities = {
  noop: async (): Promise<void> => undefined,
  sleepOneSecond: (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 1000)),
};

export type FloorActivities = typeof floorActivities;
