package dialogs

import (
	"context"
	"errors"
	"testing"
	"time"
)

// A question waiting on the queue is shown in its dialog on request (the
// tray's menu), and the dialog's answer is the question's.
func TestShowDialog(t *testing.T) {
	f := NewFake(AllowOnce)
	f.Unavailable = errors.New("no display yet")
	a, err := New(Config{Dialog: f, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	w := a.Watch()
	defer w.Close()
	if err := a.ShowDialog("q-none"); err == nil {
		t.Fatal("ShowDialog with no dialog available succeeded")
	}
	got := make(chan Answer, 1)
	go func() {
		got <- a.Ask(context.Background(), Question{Sandbox: Sandbox{ID: "s1", Name: "one"}, Bridge: "ask", Action: "asks", Subject: "May I?"})
	}()
	e := <-w.Events()
	if e.Question == nil || e.Question.Via != ViaQueue {
		t.Fatalf("first event %+v", e)
	}
	if err := a.ShowDialog(e.Question.ID); err == nil {
		t.Fatal("ShowDialog showed a dialog while none is available")
	}
	f.Unavailable = nil // a display came
	if err := a.ShowDialog("q-none"); !errors.Is(err, ErrNoQuestion) {
		t.Errorf("ShowDialog of an unknown id: %v", err)
	}
	if err := a.ShowDialog(e.Question.ID); err != nil {
		t.Fatalf("ShowDialog: %v", err)
	}
	select {
	case ans := <-got:
		if ans.Choice != AllowOnce || ans.Via != ViaDialog {
			t.Errorf("answer %+v, want allow via dialog", ans)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the dialog's answer did not answer the question")
	}
	if shown := f.Shown(); len(shown) != 1 || shown[0].Subject != "May I?" {
		t.Errorf("shown %+v", shown)
	}
}
