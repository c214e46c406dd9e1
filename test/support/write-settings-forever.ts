// Run by test/cli/start-up.test.ts and killed with SIGKILL in the middle: writes the IOU licence
// again and again, each time a different large text, as a controller saving in a loop would.
import { FileSettingsStore } from "../../src/adapters/persistence/file-settings-store.js";

const store = new FileSettingsStore(process.argv[2] as string);
process.stdout.write("writing\n");
for (let i = 0; ; i++) {
  await store.saveIouLicense({ iourc_content: `[license]\nhost${i} = ${"x".repeat(200_000)};\n`, license_check: i % 2 === 0 });
}
