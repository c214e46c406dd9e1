// placeholder replaced below
export class SwitchDataPlane {}
