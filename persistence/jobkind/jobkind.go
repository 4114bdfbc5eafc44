// Package jobkind lets every River client of a node know every durable job kind of
// the product.
//
// A node runs more than one River client on the one river_job table (the schedules'
// timers with the dashboard and group jobs, campaigns, flow timers), and the
// database elects one leader among them for River's maintenance. The leader's
// rescuer takes back the running jobs of a node that died, of every kind; River
// discards a stuck job whose kind the leader's client has no worker for, and never
// rescues one whose timeout is infinite. So each client registers, beside its own
// workers, a stand-in for each kind another client works: the stand-in tells the
// rescuer the kind's timeout, and the job is retried on its own queue, which only its
// own client works. A stand-in never works a job: its client has no queue of the kind.
package jobkind

import (
	"context"
	"fmt"
	"time"

	"github.com/riverqueue/river"
)

// Kind is a job kind and the timeout of one of its runs (its worker's Timeout, or the
// working client's JobTimeout when the worker has none).
type Kind struct {
	Name    string
	Timeout time.Duration
}

// AddStandIns registers a stand-in worker on w for each kind of kinds that is not
// among own (the kinds w's client works itself).
func AddStandIns(w *river.Workers, kinds []Kind, own ...string) error {
	mine := map[string]bool{}
	for _, k := range own {
		mine[k] = true
	}
	for _, k := range kinds {
		if mine[k.Name] {
			continue
		}
		if k.Name == "" || k.Timeout <= 0 {
			return fmt.Errorf("job kind %q: a name and a positive timeout are required", k.Name)
		}
		if err := add(w, k); err != nil {
			return err
		}
	}
	return nil
}

// add registers k's stand-in. River's AddWorkerArgs takes the kind from an args
// value rather than a type, which a kind known only at run time needs; it panics on
// a kind already registered, reported here as an error.
func add(w *river.Workers, k Kind) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("job kind %s: %v", k.Name, p)
		}
	}()
	river.AddWorkerArgs(w, foreignArgs{kind: k.Name}, &standIn{timeout: k.Timeout})
	return nil
}

// foreignArgs stands for the arguments of a kind another client works; they are not
// read.
type foreignArgs struct{ kind string }

// Kind implements river.JobArgs.
func (a foreignArgs) Kind() string { return a.kind }

type standIn struct {
	river.WorkerDefaults[foreignArgs]
	timeout time.Duration
}

// Timeout implements river.Worker: the kind's own, for the rescuer's decision.
func (s *standIn) Timeout(*river.Job[foreignArgs]) time.Duration { return s.timeout }

// Work implements river.Worker. It is not reached: the client holding a stand-in has
// no queue of its kind.
func (s *standIn) Work(_ context.Context, job *river.Job[foreignArgs]) error {
	return fmt.Errorf("job %d of kind %s is worked by another River client of the node", job.ID, job.Kind)
}
