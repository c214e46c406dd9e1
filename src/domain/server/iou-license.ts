export interface IouLicense {
  readonly iourc_content: string;
  readonly license_check: boolean;
}

export const DEFAULT_IOU_LICENSE: IouLicense = { iourc_content: "", license_check: true };

/** PUT merges like Python's dict.update: given keys replace, the others stay. */
export function mergeIouLicense(current: IouLicense, update: Partial<IouLicense>): IouLicense {
  return {
    iourc_content: update.iourc_content ?? current.iourc_content,
    license_check: update.license_check ?? current.license_check,
  };
}
