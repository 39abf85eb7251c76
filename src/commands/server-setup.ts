/**
 * Setting up a local server (Ollama, LM Studio, llama.cpp, vLLM, any OpenAI-compatible base URL):
 * once its base URL is set, the model comes from the server's own list — kept when the server has
 * the configured one, taken when it serves one, asked for when it serves several (in its order,
 * nothing preselected from the cloud catalogue) — so a session never starts on a model the server
 * does not have. vscode-free (the UI is the palette's port); never throws.
 */
import { withoutIcons } from '../common/single-line';
import { serverModelSetup } from '../providers/server-models';
import type { PaletteUi } from './palette-ui';

export interface ServerSetupDeps {
  readonly ui: Pick<PaletteUi, 't' | 'pick' | 'info'>;
  /** The server's model ids (`/v1/models`, `providers/server-models.ts`); [] when it did not answer. */
  list(baseUrl: string): Promise<readonly string[]>;
  /** Makes `model` the model of new sessions and of the open one. */
  use(model: string): Promise<void>;
}

/**
 * Chooses the model for the server at `baseUrl`, whose configured model is `current`. Resolves to
 * the model now used, or undefined when it stays as it was (dismissed, or the server did not list).
 */
export async function setUpServerModel(baseUrl: string, current: string, deps: ServerSetupDeps): Promise<string | undefined> {
  const { ui } = deps;
  const ids = await deps.list(baseUrl).catch(() => []);
  const setup = serverModelSetup(ids, current);
  switch (setup.kind) {
    case 'keep':
      return setup.model;
    case 'unknown':
      ui.info(ui.t('Headroom could not read the models of {0}. Start the server, then pick one of its models with Select Model.', baseUrl));
      return undefined;
    case 'use':
      await deps.use(setup.model);
      ui.info(ui.t('Headroom uses {0}, the model {1} serves.', setup.model, baseUrl));
      return setup.model;
    case 'ask': {
      const picked = await ui.pick(
        // Ids come from the server: no icons in a label (`$(…)`).
        setup.models.map((id) => ({ label: withoutIcons(id), id })),
        {
          title: ui.t('Headroom: which model of {0}?', baseUrl),
          placeHolder: ui.t('The server has {0} models; pick the one to chat with', setup.models.length),
        },
      );
      if (!picked) {
        ui.info(ui.t('{0} does not serve {1}: pick one of its models with Select Model before you chat.', baseUrl, current));
        return undefined;
      }
      await deps.use(picked.id);
      return picked.id;
    }
  }
}
