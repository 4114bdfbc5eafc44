// Whether the tenant has an AI endpoint: the composer's AI toggles are disabled (with a
// hint) until it has. Read once per page as the shared 'aiConfig' resource and reloaded
// on the realtime "aiConfig" event, so a save on /iaconfig reaches every open composer.
import { aiApi } from '../../api/endpoints';
import { useResource } from '../../app/resources';
import { useRealtimeEvent, useResync } from '../../app/realtime';

export function useAIConfig() {
  const config = useResource('aiConfig', aiApi.config);
  useRealtimeEvent('aiConfig', () => config.reload());
  useResync(() => config.reload());
  return config;
}

export function useAIConfigured(): boolean {
  return useAIConfig().data?.configured ?? false;
}
