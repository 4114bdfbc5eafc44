package ai

import (
	"context"
	"strings"

	"atende/engine"
)

// IntentQueue picks the queue of a new ticket from its first message (NLP intents,
// /NLPConfig): the tenant's model names the intent (engine.IntentPrompt); without a
// configuration, or when the provider fails or names no known intent, the keyword
// match decides (engine.IntentByKeywords). ok is false when no intent fits or the
// tenant has none. Only the store's failure is an error: a provider outage never
// keeps a ticket from opening.
func (c *Client) IntentQueue(ctx context.Context, companyID engine.ID, text string) (queueID engine.ID, ok bool, err error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return 0, false, nil
	}
	intents, err := c.store.Intents(ctx, companyID)
	if err != nil || len(intents) == 0 {
		return 0, false, err
	}
	if cfg, err := c.config(ctx, companyID); err == nil {
		if answer, err := c.complete(ctx, cfg, engine.IntentPrompt(intents, text)); err == nil {
			if in, found := engine.IntentNamed(intents, answer); found {
				return in.QueueID, true, nil
			}
		}
	}
	if in, found := engine.IntentByKeywords(intents, text); found {
		return in.QueueID, true, nil
	}
	return 0, false, nil
}
